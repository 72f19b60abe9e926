/**
 * The one attempt policy for every platform call delivery makes (posts, edits, deletes, prompts,
 * stream calls, recovery): what a failure means and what to do next.
 *
 * - A 429 (RateLimitedError) is retried after its retry-after: the caller says how to wait
 *   (through the limiter pool, which blocks and slows the bucket for every reply, or a plain
 *   sleep). Only a long run of consecutive 429s gives up (`max429`).
 * - A permanent failure (the platform said the call can never succeed: no such channel, not in
 *   the channel, missing permission) gives up at once: retrying only delays the bad news.
 * - Anything else is transient: back off 250 ms, 500 ms, 1 s ... up to `capMs`, and give up
 *   after `maxFailures` consecutive failures.
 *
 * A success resets the counts (they count consecutive failures). Waiting goes through an
 * injected `sleep` (default setTimeout), so tests run the policy on fake timers.
 */
import { isTurnbridgeError, type RateLimitedError } from '../../errors.js';
import { sleep as timerSleep } from './limiter-pool.js';

export interface AttemptPolicy {
  /** Consecutive non-429 failures before giving up (default 5). */
  maxFailures: number;
  /** Consecutive 429s before giving up (default 50). */
  max429: number;
  /** First back-off after a transient failure (default 250 ms); doubles each time. */
  baseMs: number;
  /** Longest back-off (default 10 s). */
  capMs: number;
}

const DEFAULT_ATTEMPT_POLICY: Readonly<AttemptPolicy> = { maxFailures: 5, max429: 50, baseMs: 250, capMs: 10_000 };

/** What one failure is. */
export type Failure =
  | { kind: 'rate-limited'; retryAfterMs: number }
  | { kind: 'permanent' }
  | { kind: 'transient' };

/** What to do after a failure. */
export type NextAttempt =
  | { kind: 'after-rate-limit'; retryAfterMs: number; limited: number }
  | { kind: 'back-off'; ms: number; failures: number }
  | { kind: 'give-up'; why: 'permanent' | 'failures' | 'rate-limits'; failures: number; limited: number };

/** Classify a failure of a Surface call (surfaces throw RateLimitedError / TurnbridgeError). */
export function classify(err: unknown): Failure {
  if (isTurnbridgeError(err, 'TB_RATE_LIMITED')) return { kind: 'rate-limited', retryAfterMs: Math.max(0, (err as RateLimitedError).retryAfterMs) };
  if (isTurnbridgeError(err) && err.permanent === true) return { kind: 'permanent' };
  return { kind: 'transient' };
}

export function backoffMs(failures: number, policy: Pick<AttemptPolicy, 'baseMs' | 'capMs'> = DEFAULT_ATTEMPT_POLICY): number {
  return Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, failures - 1));
}

/**
 * The consecutive-failure counts of one operation (one message, one stream call) and the policy:
 * `next(err)` says what to do, `succeeded()` starts the counts again.
 */
export class Attempts {
  failures = 0;
  limited = 0;
  readonly policy: AttemptPolicy;

  constructor(policy: Partial<AttemptPolicy> = {}) {
    this.policy = { ...DEFAULT_ATTEMPT_POLICY, ...definedOnly(policy) };
  }

  next(err: unknown): NextAttempt {
    const f = classify(err);
    if (f.kind === 'rate-limited') {
      this.limited++;
      if (this.limited >= this.policy.max429) return { kind: 'give-up', why: 'rate-limits', failures: this.failures, limited: this.limited };
      return { kind: 'after-rate-limit', retryAfterMs: f.retryAfterMs, limited: this.limited };
    }
    this.failures++;
    if (f.kind === 'permanent') return { kind: 'give-up', why: 'permanent', failures: this.failures, limited: this.limited };
    if (this.failures >= this.policy.maxFailures) return { kind: 'give-up', why: 'failures', failures: this.failures, limited: this.limited };
    return { kind: 'back-off', ms: backoffMs(this.failures, this.policy), failures: this.failures };
  }

  succeeded(): void {
    this.failures = 0;
    this.limited = 0;
  }
}

export interface AttemptOptions {
  policy?: Partial<AttemptPolicy>;
  /** How to wait out a 429 (default: sleep retry-after). Pool callers penalize the buckets instead (the pool blocks). */
  onRateLimited?: (retryAfterMs: number) => void | Promise<void>;
  /** Called on every failure with what happens next (for logs and stats). */
  onFailure?: (err: unknown, next: NextAttempt) => void;
  /** Checked on a failure: true = give up now whatever the error (e.g. the stream already ended). */
  stop?: (err: unknown) => boolean;
  /** Waits the back-off (default setTimeout; tests inject fake timers). */
  sleep?: (ms: number) => Promise<void>;
}

export type AttemptResult<T> = { ok: true; value: T } | { ok: false; error: unknown; why: 'permanent' | 'failures' | 'rate-limits' | 'stopped' };

/** Run `fn` until it succeeds or the policy gives up. Never throws what `fn` throws. */
export async function attempt<T>(fn: () => Promise<T>, opts: AttemptOptions = {}): Promise<AttemptResult<T>> {
  const counts = new Attempts(opts.policy);
  const sleep = opts.sleep ?? timerSleep;
  for (;;) {
    try {
      return { ok: true, value: await fn() };
    } catch (err) {
      if (opts.stop?.(err)) return { ok: false, error: err, why: 'stopped' };
      const next = counts.next(err);
      opts.onFailure?.(err, next);
      if (next.kind === 'give-up') return { ok: false, error: err, why: next.why };
      if (next.kind === 'back-off') await sleep(next.ms);
      else await (opts.onRateLimited ? opts.onRateLimited(next.retryAfterMs) : sleep(next.retryAfterMs));
    }
  }
}

/** One-line description of a failure for logs (never a token: surfaces do not put them in errors). */
export function describeFailure(err: unknown): string {
  if (err instanceof Error) return isTurnbridgeError(err) ? `${err.code}: ${err.message}` : err.message;
  return String(err);
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
