/**
 * Pacing: when a platform call may go. One limiter per rate budget the Surface names, shared by
 * every reply (limiter-pool.ts: priority order, final before live, 429s block and slow a bucket),
 * the same budgets shared by every replica through Redis (shared-limiter.ts, loaded on demand),
 * and the one attempt policy every call of delivery follows (attempt.ts: 429s wait, permanent
 * refusals give up at once, the rest back off). Knows nothing of messages or replies.
 */
import type { SharedLimiters, SharedLimitersOptions } from './shared-limiter.js';

export { attempt, Attempts, classify, describeFailure, type AttemptResult, type NextAttempt } from './attempt.js';
export {
  createBottleneckLimiter, createLimiterPool, sleep,
  type LimiterFactory, type LimiterPool, type RateLimiter, type RunOptions, type RunPriority,
} from './limiter-pool.js';
export type { SharedBudgetState, SharedLimiters } from './shared-limiter.js';

/** Budgets shared by every replica through Redis; ioredis loads only on this call. */
export async function createSharedLimiters(opts: SharedLimitersOptions): Promise<SharedLimiters> {
  return (await import('./shared-limiter.js')).createSharedLimiters(opts);
}
