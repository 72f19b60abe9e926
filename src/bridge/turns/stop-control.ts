import type { UserRef } from '../../chat.js';
import { mayStop, mention, policyFor, refusalText } from '../approvals/index.js';
import type { BridgeContext } from './context.js';
import type { Turn } from './turn.js';
import { isWaiting } from './turn-registry.js';

export type StopAnswer = { ok: true; turn: Turn } | { ok: false; reason: 'not-allowed' | 'finished'; text: string };

/** Stop a queued or running turn, for its author or an approver. */
export function stopTurn(ctx: BridgeContext, turn: Turn | undefined, user: UserRef, platform: string): StopAnswer {
  const phase = turn?.phase.kind;
  if (!turn || phase === 'finishing' || phase === 'done' || phase === 'interrupted') {
    return { ok: false, reason: 'finished', text: 'This turn has already finished.' };
  }
  const policy = policyFor(ctx.config, turn.route);
  if (!mayStop({ platform, user }, { platform: turn.msg.platform, user: turn.msg.user }, policy)) {
    turn.log.info({ platform, user: user.id }, 'stop refused: not the author or an approver');
    return { ok: false, reason: 'not-allowed', text: refusalText(turn.msg.user, 'stop', policy, false) };
  }
  if (phase === 'stopping') return { ok: true, turn };
  const waiting = isWaiting(turn.phase);
  ctx.turns.stop(turn, user);
  turn.log.info({ by: user.id }, 'turn stopped');
  if (waiting) {
    if (ctx.queue.remove(turn)) {
      turn.cancelWaiting();
      ctx.queue.pump();
      ctx.updateGauges();
    }
  } else {
    turn.abort.abort(new Error(`stopped by ${mention(user)}`));
  }
  return { ok: true, turn };
}

/** The Stop button. */
export async function handleStopAction(ctx: BridgeContext, id: string, user: UserRef, platform: string, notify: (text: string) => Promise<void>): Promise<void> {
  const turn = ctx.turns.get(id);
  if (!turn) {
    await notify(ctx.turns.ended(id) ? 'This turn has already finished.' : 'This turn has already finished (or the bridge restarted since).');
    return;
  }
  const answer = stopTurn(ctx, turn, user, platform);
  if (!answer.ok) await notify(answer.text);
}

/** The `stop` command: stops the conversation's running turn (else its oldest queued one). */
export function findStoppable(ctx: BridgeContext, key: string): Turn | undefined {
  return ctx.turns.stoppable(key);
}
