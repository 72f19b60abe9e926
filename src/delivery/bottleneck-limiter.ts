/**
 * The default RateLimiter: one bottleneck instance per RateBudget.
 * burst <= 1: `minTime` spacing (60000 / perMinute ms between starts).
 * burst > 1: a token bucket (reservoir of `burst`, one token back every 60000 / perMinute ms).
 */
import Bottleneck from 'bottleneck';
import type { RateBudget } from './surface.js';

/** What delivery needs from a limiter; a test or a Redis-backed limiter can provide its own. */
export interface RateLimiter {
  /**
   * Run `fn` when the budget allows it. Queued work starts in priority order (0 first, 9 last,
   * default 5), then in arrival order.
   */
  schedule<T>(fn: () => Promise<T>, opts?: { priority?: number }): Promise<T>;
  /** Drop queued work and release timers. */
  stop(): Promise<void>;
}

export type LimiterFactory = (budget: RateBudget) => RateLimiter;

/** bottleneck's priorities run 0 (first) .. 9 (last); 5 is its default. */
export const DEFAULT_PRIORITY = 5;

export function intervalOf(budget: RateBudget): number {
  return Math.ceil(60_000 / budget.perMinute);
}

/**
 * The bottleneck settings for a budget, the same for a local limiter and for one clustered on
 * Redis, so one replica alone and N replicas together pace alike.
 */
export function bottleneckSettings(budget: RateBudget): Bottleneck.ConstructorOptions {
  const interval = intervalOf(budget);
  const burst = Math.max(1, Math.floor(budget.burst ?? 1));
  return burst <= 1
    ? { maxConcurrent: null, minTime: interval }
    : {
        maxConcurrent: null,
        reservoir: burst,
        reservoirIncreaseInterval: interval,
        reservoirIncreaseAmount: 1,
        reservoirIncreaseMaximum: burst,
        heartbeatInterval: Math.min(250, interval),
      };
}

/** Wrap a bottleneck instance as a RateLimiter. */
export function wrapBottleneck(limiter: Bottleneck): RateLimiter {
  return {
    schedule: (fn, o) => limiter.schedule({ priority: o?.priority ?? DEFAULT_PRIORITY }, fn),
    async stop() {
      await limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
    },
  };
}

// Settings are fixed at creation: bottleneck 2.19.5's updateSettings() stops the reservoir
// heartbeat for good (LocalDatastore._startHeartbeat clears it and never restarts it), so
// 429 slowdowns are applied by the limiter pool instead.
export const createBottleneckLimiter: LimiterFactory = (budget) => wrapBottleneck(new Bottleneck(bottleneckSettings(budget)));
