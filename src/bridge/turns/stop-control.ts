import type { UserRef } from '../../chat.js';
import { conversationKey, type LedgerRecord } from '../../state/index.js';
import { mayStop, mention, policyFor, refusalText } from '../approvals/index.js';
import type { BridgeContext } from './context.js';
import type { Turn } from './turn.js';
import { isWaiting } from './turn-registry.js';
import type { ConversationStopEvent } from '../types.js';

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

type ReplyRecord = Extract<LedgerRecord, { kind: 'reply' }>;

/**
 * The Stop id of the conversation's turn another replica holds (its running one, else its oldest
 * queued one), from the shared ledger, where every accepted turn's reply is recorded with the
 * Stop id its live message carries.
 */
async function heldElsewhere(ctx: BridgeContext, key: string): Promise<string | undefined> {
  const records = await ctx.state.ledger.all();
  const mine = records.filter((r): r is ReplyRecord & { marker: string } =>
    r.kind === 'reply' && r.holder !== ctx.state.holder && r.marker !== undefined && conversationKey(r.message.platform, r.message.conversation) === key);
  const running = mine.find((r) => r.turn === 'running');
  return (running ?? mine.sort((a, b) => a.message.receivedAt - b.message.receivedAt)[0])?.marker;
}

/**
 * A platform's own Stop on a conversation (Slack's agent session Stop): the conversation's turn
 * held here, else the one another replica holds, whose Stop id goes the way of a Stop click
 * (`stopById`: forwarded to its holder, which checks the clicker's rights and answers privately).
 */
export async function stopConversation(ctx: BridgeContext, ev: ConversationStopEvent, stopById: (id: string) => Promise<void>): Promise<'asked' | 'nothing'> {
  const key = conversationKey(ev.platform, ev.conversation);
  const here = ctx.turns.stoppable(key);
  if (here) {
    const answer = stopTurn(ctx, here, ev.user, ev.platform);
    // A turn already finishing needs no word: its reply is on its way.
    if (!answer.ok && answer.reason === 'not-allowed') await ev.notifyPrivately(answer.text);
    return 'asked';
  }
  const id = await heldElsewhere(ctx, key);
  if (!id) return 'nothing';
  await stopById(id);
  return 'asked';
}

/** The `stop` command: stops the conversation's running turn (else its oldest queued one). */
export function findStoppable(ctx: BridgeContext, key: string): Turn | undefined {
  return ctx.turns.stoppable(key);
}
