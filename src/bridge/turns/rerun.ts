/**
 * Run again: an interrupted reply's button re-runs the original message, once, for its author
 * (or an approver, as for Stop). The record lives in the bridge state, so the button works after restarts.
 */
import type { UserRef } from '../../chat.js';
import { routeMessage } from '../access/index.js';
import { mayStop, policyFor, refusalText } from '../approvals/index.js';
import { acceptMessage } from './accept-message.js';
import type { BridgeContext } from './context.js';
import { rebuildMessage } from './rebuild-message.js';

/** How long a Run again button works (7 days). */
export const RERUN_TTL_MS = 7 * 24 * 3600_000;

export const rerunActionId = (turnId: string): string => `rerun-${turnId}`;

export async function handleRerunAction(ctx: BridgeContext, id: string, user: UserRef, platform: string, notify: (text: string) => Promise<void>): Promise<void> {
  const rec = await ctx.state.reruns.get(id);
  if (!rec) {
    await notify('This message can no longer be run again (it was run again already, or it is too old). Please send it again.');
    return;
  }
  // Who may stop a turn may run it again: its author, an approver (the bridge's or the route's) or an admin.
  const policy = policyFor(ctx.config, routeMessage(ctx.config, rec.message).route);
  if (!mayStop({ platform, user }, { platform: rec.message.platform, user: rec.author }, policy)) {
    await notify(refusalText(rec.author, 'stop', policy, false).replace(/stop this turn/, 'run this again'));
    return;
  }
  if (ctx.closing) {
    await notify('The bridge is restarting. Please press Run again in a minute.');
    return;
  }
  if (!(await ctx.state.reruns.take(id, RERUN_TTL_MS))) {
    await notify('This message is already being run again.');
    return;
  }
  const attached = ctx.surfaces.get(rec.message.platform);
  if (!attached) return;
  ctx.logger.info({ platform: rec.message.platform, user: user.id, rerun: id }, 'run again');
  // The button goes first, so no dead button is left once the new turn runs.
  await attached.delivery.rewrite(rec.ref, rec.content);
  await ctx.state.reruns.remove(id);
  const msg = rebuildMessage(ctx, rec.message, `#rerun-${ctx.idFactory()}`);
  await acceptMessage(ctx, msg);
}
