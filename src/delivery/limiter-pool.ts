/**
 * One limiter per RateBudget key, shared by every reply of one Delivery (so a per-workspace
 * edit budget is shared by all concurrent replies). A 429 blocks the buckets it came from for
 * retry-after and slows them down for a while: while slowed, starts in a bucket are spaced
 * by interval x factor (on top of the limiter's own pacing), and the factor halves back every
 * `slowdownMs` without a 429.
 */
import type { Logger } from '../log.js';
import { createBottleneckLimiter, intervalOf, type LimiterFactory, type RateLimiter } from './bottleneck-limiter.js';
import type { RateBudget } from './surface.js';

export interface LimiterPoolOptions {
  factory?: LimiterFactory;
  now: () => number;
  logger: Logger;
  /** How long a slowdown lasts before the rate doubles back (default 60 s). */
  slowdownMs?: number;
  /** Largest slowdown factor (default 8). */
  maxSlowdown?: number;
  /** Buckets unused this long (and not slowed, blocked or busy) are dropped (default 10 min). */
  idleMs?: number;
}

interface Bucket {
  budget: RateBudget;
  limiter: RateLimiter;
  blockedUntil: number;
  factor: number;
  slowUntil: number;
  /** Earliest next start while slowed down. */
  slowNextAt: number;
  /** Runs queued or in progress. */
  active: number;
  lastUsed: number;
}

export interface LimiterPool {
  /** Run `fn` through every budget's limiter, in order, once no bucket is blocked by a 429. */
  run<T>(budgets: readonly RateBudget[], fn: () => Promise<T>): Promise<T>;
  /** A 429 came back: block these buckets for `retryAfterMs` and slow them down. */
  penalize(budgets: readonly RateBudget[], retryAfterMs: number): void;
  /** Current slowdown of a bucket (1 = none); for tests and metrics. */
  slowdownOf(key: string): number;
  /** Number of buckets created so far. */
  readonly size: number;
  stop(): Promise<void>;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

export function createLimiterPool(opts: LimiterPoolOptions): LimiterPool {
  const factory = opts.factory ?? createBottleneckLimiter;
  const slowdownMs = opts.slowdownMs ?? 60_000;
  const maxSlowdown = opts.maxSlowdown ?? 8;
  const idleMs = opts.idleMs ?? 600_000;
  const buckets = new Map<string, Bucket>();
  let runsSinceSweep = 0;

  /** Per-conversation budgets would otherwise pile up in a long-running bridge. */
  function sweep(now: number): void {
    for (const [key, b] of buckets) {
      recover(b, now);
      if (b.active === 0 && b.factor === 1 && b.blockedUntil <= now && now - b.lastUsed >= idleMs) {
        buckets.delete(key);
        void b.limiter.stop();
      }
    }
  }

  async function runThrough<T>(list: Bucket[], fn: () => Promise<T>): Promise<T> {
    await waitUnblocked(list, false);
    const innermost = async () => {
      await waitUnblocked(list, true);
      return fn();
    };
    let call: () => Promise<T> = innermost;
    for (const b of [...list].reverse()) {
      const next = call;
      call = () => b.limiter.schedule(next);
    }
    return call();
  }

  function bucketOf(budget: RateBudget): Bucket | undefined {
    if (!(budget.perMinute > 0) || !Number.isFinite(budget.perMinute)) return undefined;
    let b = buckets.get(budget.key);
    if (!b) {
      b = { budget, limiter: factory(budget), blockedUntil: 0, factor: 1, slowUntil: 0, slowNextAt: 0, active: 0, lastUsed: opts.now() };
      buckets.set(budget.key, b);
    }
    return b;
  }

  /** Recover gradually: halve the slowdown for every `slowdownMs` without a 429. */
  function recover(b: Bucket, now: number): void {
    while (b.factor > 1 && now >= b.slowUntil) {
      b.factor = Math.max(1, b.factor / 2);
      b.slowUntil += slowdownMs;
    }
  }

  /** Wait out 429 blocks and slowdown spacing; claims the next slowed slot before returning. */
  async function waitUnblocked(list: Bucket[], claim: boolean): Promise<void> {
    for (;;) {
      const now = opts.now();
      for (const b of list) recover(b, now);
      const until = Math.max(0, ...list.map((b) => Math.max(b.blockedUntil, b.factor > 1 ? b.slowNextAt : 0)));
      if (until <= now) {
        if (claim) for (const b of list) if (b.factor > 1) b.slowNextAt = now + intervalOf(b.budget) * b.factor;
        return;
      }
      await sleep(until - now);
    }
  }

  return {
    async run<T>(budgets: readonly RateBudget[], fn: () => Promise<T>): Promise<T> {
      const list = budgets.map(bucketOf).filter((b): b is Bucket => b !== undefined);
      if (++runsSinceSweep >= 100) {
        runsSinceSweep = 0;
        sweep(opts.now());
      }
      for (const b of list) b.active++;
      try {
        return await runThrough(list, fn);
      } finally {
        const now = opts.now();
        for (const b of list) {
          b.active--;
          b.lastUsed = now;
        }
      }
    },

    penalize(budgets, retryAfterMs) {
      const now = opts.now();
      for (const budget of budgets) {
        const b = bucketOf(budget);
        if (!b) continue;
        b.blockedUntil = Math.max(b.blockedUntil, now + retryAfterMs);
        b.factor = Math.min(maxSlowdown, b.factor * 2);
        b.slowUntil = now + retryAfterMs + slowdownMs;
        opts.logger.warn({ bucket: b.budget.key, retryAfterMs, slowdown: b.factor }, 'rate limited by the platform; backing off');
      }
    },

    slowdownOf: (key) => buckets.get(key)?.factor ?? 1,
    get size() {
      return buckets.size;
    },

    async stop() {
      await Promise.all([...buckets.values()].map((b) => b.limiter.stop()));
      buckets.clear();
    },
  };
}
