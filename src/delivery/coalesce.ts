/**
 * Coalescing policy for one message, as a pure function: at most one operation in flight,
 * latest content wins (no backlog), at most one edit per `minIntervalMs`, except that the
 * edit that first puts answer text into the message goes at once.
 */
import { sameContent } from './render.js';
import type { MessageContent } from './surface.js';

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
