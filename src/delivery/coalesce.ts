/**
 * Coalescing policy for one message, as a pure function: at most one operation in flight,
 * latest content wins (no backlog), at most one edit per `minIntervalMs`.
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

export function nextStep(s: CoalesceState, now: number, minIntervalMs: number): NextStep {
  if (s.inFlight) return { kind: 'busy' };
  if (sameContent(s.desired, s.shown)) return { kind: 'idle' };
  const earliest = Math.max(s.notBefore, s.lastSentAt === undefined ? 0 : s.lastSentAt + minIntervalMs);
  if (now < earliest) return { kind: 'wait', ms: earliest - now };
  return { kind: 'send', content: s.desired };
}
