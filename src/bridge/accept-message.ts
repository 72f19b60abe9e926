import type { Delivery } from '../delivery/types.js';
import type { Surface } from '../delivery/surface.js';
import { isTurnbridgeError } from '../errors.js';
import type { Profile } from '../profile/index.js';
import type { RouteConfig } from './api.js';
import { describeRule } from './permission-rules.js';
import { parseCommand, type BridgeCommand } from './commands.js';
import type { BridgeContext } from './context.js';
import { conversationKey } from './conversation-key.js';
import { executeTurn } from './execute-turn.js';
import { routeMessage } from './routing.js';
import { findStoppable, stopTurn } from './stop-control.js';
import { createTurn, type Turn } from './turn.js';
import type { InboundMessage } from './types.js';

export const BANNER_NO_PERMISSION = 'Note: this agent runs tools without asking for permission.';
/** The store key part of the banner's "shown once" memory. */
const AUTO_APPROVE_NOTICE = 'auto-approve';

async function tidy(ctx: BridgeContext, msg: InboundMessage): Promise<void> {
  if (msg.cleanup) await msg.cleanup().catch((err: unknown) => ctx.logger.warn({ err }, 'attachment cleanup failed'));
}

async function say(ctx: BridgeContext, delivery: Delivery, msg: InboundMessage, text: string, tone: 'info' | 'warning' | 'error' | 'success'): Promise<void> {
  try {
    await delivery.say(msg.conversation, text, tone);
  } catch (err) {
    ctx.logger.warn({ err, platform: msg.platform }, 'could not post a notice');
  }
}

/** `rules`: the thread's "Allow for this thread" rules, who set them and when. */
async function listRules(ctx: BridgeContext, msg: InboundMessage, key: string, delivery: Delivery): Promise<void> {
  const rules = await ctx.rules.list(key);
  if (rules.length === 0) {
    await say(ctx, delivery, msg, 'No permission rules in this thread. "Allow for this thread" on a prompt adds one.', 'info');
    return;
  }
  const lines = rules.map((r) => `• \`${describeRule(r.rule)}\` set by @${r.setBy.name ?? r.setBy.id} at ${new Date(r.setAt).toISOString().replace('T', ' ').slice(0, 16)} UTC`);
  await say(ctx, delivery, msg, `Permission rules in this thread (matching requests are allowed without asking):\n${lines.join('\n')}\nType \`rules clear\` to remove them.`, 'info');
}

async function handleCommand(ctx: BridgeContext, cmd: BridgeCommand, msg: InboundMessage, key: string, delivery: Delivery): Promise<void> {
  const log = ctx.logger.child({ platform: msg.platform, conversation: key, user: msg.user.id, command: cmd });
  if (cmd === 'reset') {
    ctx.generations.set(key, (ctx.generations.get(key) ?? 0) + 1);
    // delete() is false both for "nothing stored" and for a store failure (logged by the store).
    const [existed, rules] = await Promise.all([
      ctx.store.delete(msg.conversation, msg.platform),
      ctx.rules.clear(key),
      ctx.notices.forget(key, AUTO_APPROVE_NOTICE),
    ]);
    log.info({ existed, rulesCleared: rules }, 'session reset');
    const also = rules > 0 ? ` The thread's ${rules} permission rule${rules === 1 ? ' is' : 's are'} gone too.` : '';
    await say(ctx, delivery, msg, `Started a fresh session: the next message begins a new conversation with the agent.${also}`, 'success');
    return;
  }
  if (cmd === 'rules') return listRules(ctx, msg, key, delivery);
  if (cmd === 'rules-clear') {
    const n = await ctx.rules.clear(key);
    log.info({ rulesCleared: n }, 'permission rules cleared');
    await say(ctx, delivery, msg, n > 0 ? `Removed ${n} permission rule${n === 1 ? '' : 's'}: the agent asks again.` : 'No permission rules in this thread.', 'success');
    return;
  }
  const turn = findStoppable(ctx, key);
  if (!turn) {
    await say(ctx, delivery, msg, 'Nothing is running in this conversation.', 'info');
    return;
  }
  const answer = stopTurn(ctx, turn, msg.user);
  if (!answer.ok) await say(ctx, delivery, msg, answer.text, 'warning');
  log.info({ ok: answer.ok, turnId: turn.id }, 'stop command');
}

function profileErrorText(err: unknown): string {
  const code = isTurnbridgeError(err) ? ` (${err.code})` : '';
  return `The agent profile for this conversation could not be loaded${code}. The bridge operator can find the details in the bridge log.`;
}

/** InboundMessage -> dedupe -> access -> commands -> profile -> queue (or a clear refusal). */
export async function acceptMessage(ctx: BridgeContext, msg: InboundMessage): Promise<void> {
  const attached = ctx.surfaces.get(msg.platform);
  if (!attached) {
    ctx.logger.error({ platform: msg.platform }, 'message from a platform with no attached surface');
    await tidy(ctx, msg);
    return;
  }
  const { surface, delivery } = attached;
  const key = conversationKey(msg.platform, msg.conversation);
  const base = { platform: msg.platform, conversation: key, user: msg.user.id };

  const routed = routeMessage(ctx.config, msg);
  if (routed.refusal) {
    ctx.logger.info(base, 'message refused by access rules');
    ctx.metrics.rejected('refused');
    await say(ctx, delivery, msg, routed.refusal, 'warning');
    await tidy(ctx, msg);
    return;
  }
  if (ctx.closing) {
    ctx.logger.info({ ...base, eventId: msg.eventId }, 'message not run: the bridge is shutting down');
    await say(ctx, delivery, msg, 'The bridge is restarting and did not run this message. Please send it again in a minute.', 'warning');
    await tidy(ctx, msg);
    return;
  }
  const cmd = parseCommand(msg.text, msg.attachments.length);
  if (cmd) {
    await handleCommand(ctx, cmd, msg, key, delivery);
    await tidy(ctx, msg);
    return;
  }

  let profile: Profile;
  try {
    profile = await ctx.profile(routed.profilePath);
  } catch (err) {
    ctx.logger.error({ ...base, err, profile: routed.profilePath }, 'profile could not be loaded');
    ctx.metrics.rejected('profile_error');
    await say(ctx, delivery, msg, profileErrorText(err), 'error');
    await tidy(ctx, msg);
    return;
  }
  await enqueue(ctx, msg, { surface, delivery, key, profile, profilePath: routed.profilePath, route: routed.route });
}

async function enqueue(
  ctx: BridgeContext,
  msg: InboundMessage,
  t: { surface: Surface; delivery: Delivery; key: string; profile: Profile; profilePath: string; route?: RouteConfig },
): Promise<void> {
  const id = ctx.idFactory();
  const log = ctx.logger.child({ turn: id, platform: msg.platform, conversation: t.key, profile: t.profilePath, user: msg.user.id });
  const turn: Turn = createTurn({
    id,
    key: t.key,
    msg,
    surface: t.surface,
    delivery: t.delivery,
    profilePath: t.profilePath,
    profile: t.profile,
    route: t.route,
    stopActionId: `stop-${ctx.idFactory()}`,
    log,
    enqueuedAt: ctx.now(),
    onPosition: (self, position) => {
      if (!self.reply) return;
      self.showedQueued = true;
      self.reply.setStatus(`queued: position ${position}`);
    },
  });
  // Remembered in the store, so a restart does not announce it again in the same conversation.
  // (A message refused as busy cannot be the conversation's first: its banner was shown.)
  const banner = !t.profile.permission && (await ctx.notices.firstTime(t.key, AUTO_APPROVE_NOTICE)) ? BANNER_NO_PERMISSION : undefined;
  if (ctx.queue.offer(turn) === 'busy') {
    log.info({ queueDepth: ctx.config.queueDepth }, 'conversation busy; message refused');
    ctx.metrics.rejected('busy');
    const waiting = ctx.config.queueDepth;
    const text = waiting > 0
      ? `Busy: ${waiting} message${waiting === 1 ? ' is' : 's are'} already waiting in this conversation. Please send this again when the current reply finishes.`
      : 'Busy: the agent is still answering the previous message here. Please send this again when it finishes.';
    await say(ctx, t.delivery, msg, text, 'warning');
    await tidy(ctx, msg);
    return;
  }
  ctx.turns.set(turn.stopActionId, turn);
  log.debug({ text: msg.text, attachments: msg.attachments.length }, 'message accepted');
  ctx.queue.pump();
  const position = turn.state === 'queued' ? ctx.queue.positionOf(turn) : undefined;
  turn.showedQueued = position !== undefined;
  turn.reply = t.delivery.open(msg.conversation, {
    recipient: msg.user,
    stopActionId: t.surface.capabilities.buttons ? turn.stopActionId : undefined,
    initialStatus: position !== undefined ? `queued: position ${position}` : undefined,
    notices: msg.notices,
    banner,
  });
  ctx.updateGauges();
  turn.done = executeTurn(ctx, turn);
}
