/**
 * The life of one MessageSlot as ONE value, and the only way it changes: nextLife(life, event)
 * answers the next state, or a reason why the event is refused in this state (the slot logs it
 * and changes nothing). Pure, so the table is tested on its own
 * (test/unit/delivery/message-slot-state.test.ts).
 *
 * The states, what each means, the events that move it and its priority: docs/architecture.md,
 * "States".
 */
import type { MessageContent, MessageRef } from '../../chat.js';
import type { RunPriority } from '../pacing/index.js';

/** Why the slot gave up (attempt.ts's verdict) and the last error. */
export interface SlotFailure {
  why: 'permanent' | 'failures' | 'rate-limits';
  error: unknown;
}

export type SlotLife =
  | { kind: 'posting'; priority: RunPriority }
  | { kind: 'shown'; ref: MessageRef; priority: RunPriority }
  /** `ref`: the message, when it was posted before the slot gave up (edits gave up), else none. */
  | { kind: 'given-up'; ref?: MessageRef; priority: RunPriority; failure: SlotFailure }
  | { kind: 'removing'; ref: MessageRef }
  | { kind: 'removed'; ref: MessageRef };

export type SlotEvent =
  /** The platform confirmed the post. */
  | { type: 'posted'; ref: MessageRef }
  /** The attempt policy gave up on the post or an edit. */
  | { type: 'give-up'; failure: SlotFailure }
  /** settle() after giving up: a fresh set of attempts. */
  | { type: 'retry' }
  /** The reply's final state reached this slot. */
  | { type: 'finalize' }
  /** retire() on a surface that can delete. */
  | { type: 'remove' }
  | { type: 'removed' }
  /** Deleting failed for good: the message is edited to the fallback instead. */
  | { type: 'remove-failed' };

/** The next state, or a string saying why `event` is refused in `life`. */
export function nextLife(life: SlotLife, event: SlotEvent): SlotLife | string {
  const k = life.kind;
  switch (event.type) {
    case 'posted':
      return life.kind === 'posting' ? { kind: 'shown', ref: event.ref, priority: life.priority } : `only a message being posted can be posted (it is ${k})`;
    case 'give-up':
      if (life.kind === 'posting') return { kind: 'given-up', priority: life.priority, failure: event.failure };
      if (life.kind === 'shown') return { kind: 'given-up', ref: life.ref, priority: life.priority, failure: event.failure };
      // the edit that was in flight when retire() began gave up: the removal decides what follows
      if (life.kind === 'removing') return life;
      return `nothing is being sent for a ${k} message`;
    case 'retry':
      if (life.kind !== 'given-up') return `only a message that gave up is retried (it is ${k})`;
      return life.ref ? { kind: 'shown', ref: life.ref, priority: life.priority } : { kind: 'posting', priority: life.priority };
    case 'finalize':
      // a removal already runs at final priority; a second finalize changes nothing
      if (life.kind === 'removing' || life.kind === 'removed' || life.priority === 'final') return life;
      return { ...life, priority: 'final' };
    case 'remove':
      if (life.kind === 'removing' || life.kind === 'removed') return `the message is already ${k}`;
      if (life.kind === 'posting' || !life.ref) return 'the message was never posted';
      return { kind: 'removing', ref: life.ref };
    case 'removed':
      return life.kind === 'removing' ? { kind: 'removed', ref: life.ref } : `no removal runs (it is ${k})`;
    case 'remove-failed':
      return life.kind === 'removing' ? { kind: 'shown', ref: life.ref, priority: 'final' } : `no removal runs (it is ${k})`;
  }
}

/** The posted message, if there is one (also while removing and once removed). */
export function refOf(life: SlotLife): MessageRef | undefined {
  return life.kind === 'posting' ? undefined : life.ref;
}

/** The limiter priority of the slot's calls. */
export function priorityOf(life: SlotLife): RunPriority {
  return life.kind === 'removing' || life.kind === 'removed' ? 'final' : life.priority;
}

/**
 * One edit's way through the limiter: queued → sending (the limiter let it go and the platform
 * call began) or queued → superseded (a final edit took its place first: it does nothing).
 */
export type EditStage = 'queued' | 'sending' | 'superseded';

const EDIT_MOVES: Record<EditStage, readonly EditStage[]> = {
  queued: ['sending', 'superseded'],
  sending: [],
  superseded: [],
};

export function canMoveEdit(from: EditStage, to: EditStage): boolean {
  return EDIT_MOVES[from].includes(to);
}

/*
 * Coalescing, as a pure function: at most one operation in flight, latest content wins (no
 * backlog), at most one edit per `minIntervalMs`, except that the edit that first puts answer
 * text into the message goes at once.
 */

export interface CoalesceState {
  /** What the message should show now. */
  desired: MessageContent;
  /** What the platform last confirmed (undefined before the post landed). */
  shown?: MessageContent;
  inFlight: boolean;
  /** When the last post/edit was sent. */
  lastSentAt?: number;
  /** Earliest next attempt after a failure (0 = none). */
  notBefore: number;
}

export type NextStep =
  | { kind: 'idle' }
  | { kind: 'busy' }
  | { kind: 'wait'; ms: number }
  | { kind: 'send'; content: MessageContent };

/**
 * The first answer text is what the user waits for: a message that shows none yet (the
 * placeholder just posted, or thinking only) takes it without waiting out the interval since
 * that post or edit. The platform's budget still decides (every call goes through the limiter
 * pool), and later edits are paced from this one. It cannot recur every edit: the message must
 * first be edited back to no text, and that edit is paced, so at worst every other edit skips
 * the interval.
 */
function firstText(s: CoalesceState): boolean {
  return s.shown !== undefined && s.shown.text === '' && s.desired.text !== '';
}

export function nextStep(s: CoalesceState, now: number, minIntervalMs: number): NextStep {
  if (s.inFlight) return { kind: 'busy' };
  if (sameContent(s.desired, s.shown)) return { kind: 'idle' };
  const paced = s.lastSentAt === undefined || firstText(s) ? 0 : s.lastSentAt + minIntervalMs;
  const earliest = Math.max(s.notBefore, paced);
  if (now < earliest) return { kind: 'wait', ms: earliest - now };
  return { kind: 'send', content: s.desired };
}

function sameContent(a: MessageContent | undefined, b: MessageContent | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return a.text === b.text && a.thinking === b.thinking && a.status === b.status && a.tone === b.tone && a.stopActionId === b.stopActionId;
}
