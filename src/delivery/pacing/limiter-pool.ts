/**
 * One limiter per RateBudget key, shared by every reply of one Delivery (so a per-workspace
 * edit budget is shared by all concurrent replies). A 429 blocks the buckets it came from for
 * retry-after and slows them down for a while: while slowed, starts in a bucket are spaced
 * by interval x factor (on top of the limiter's own pacing), and the factor halves back every
 * `slowdownMs` without a 429.
 *
 * Runs wait for a bucket in priority order: a reply's final operations (`final`) overtake the
 * progress updates (`live`) of other replies, so final texts do not queue behind live edits.
 * Only one run at a time sits inside a bucket's limiter (bottleneck cannot reorder or drop a job
 * it holds); the rest wait in the pool, where a skipped run costs nothing.
 */
import Bottleneck from 'bottleneck';
import type { Logger } from '../../log.js';
import type { RateBudget } from '../surface.js';

/*
 * The default RateLimiter: one bottleneck instance per RateBudget.
 * burst <= 1: `minTime` spacing (60000 / perMinute ms between starts).
 * burst > 1: a token bucket (reservoir of `burst`, one token back every 60000 / perMinute ms).
 */

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

function intervalOf(budget: RateBudget): number {
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
function wrapBottleneck(limiter: Bottleneck): RateLimiter {
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

/** A run waiting for its turn to enter a bucket's limiter. */
interface Waiting {
  priority: number;
  seq: number;
  enter: () => void;
  abandon: (err: Error) => void;
}

interface Bucket {
  budget: RateBudget;
  limiter: RateLimiter;
  /**
   * Runs wait here, in priority order, and enter the limiter one at a time (the next enters when
   * the previous starts), so that a late `final` run overtakes every `live` run still waiting
   * and a skipped run never takes a slot of the budget.
   */
  waiting: Waiting[];
  /** Runs handed to the limiter that have not started yet (0 or 1). */
  entered: number;
  blockedUntil: number;
  factor: number;
  slowUntil: number;
  /** Earliest next start while slowed down. */
  slowNextAt: number;
  /** Runs queued or in progress. */
  active: number;
  lastUsed: number;
}

/**
 * How urgent an operation is. `final` (the finish of a reply: final edits, last parts, stream
 * stops) starts before any queued `live` operation (progress edits, appends) in the same bucket.
 */
export type RunPriority = 'final' | 'live';

const PRIORITY: Record<RunPriority, number> = { final: 1, live: DEFAULT_PRIORITY };

export interface RunOptions {
  priority?: RunPriority;
  /** Checked when the run's turn comes: true = drop it (it resolves undefined). */
  skipIf?: () => boolean;
  /** Aborted before `fn` started: the run resolves undefined at once and `fn` is never called. */
  signal?: AbortSignal;
}

export interface LimiterPool {
  /**
   * Run `fn` through every budget's limiter, in order, once no bucket is blocked by a 429.
   * Waiting `final` runs overtake waiting `live` runs (default `live`). When `skipIf()` is true
   * at the run's turn, `fn` is not called, no budget is spent, and the run resolves undefined.
   */
  run<T>(budgets: readonly RateBudget[], fn: () => Promise<T>, opts?: RunOptions): Promise<T>;
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

  let seq = 0;

  /** Let waiting runs into the limiter while none that entered is still waiting to start. */
  function admit(b: Bucket): void {
    while (b.entered === 0 && b.waiting.length > 0) b.waiting.shift()!.enter();
  }

  /** Run `fn` through one bucket: wait for a turn (priority order), then the limiter's pacing. */
  function through<T>(b: Bucket, priority: number, fn: () => Promise<T>, skipIf?: () => boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const w: Waiting = {
        priority,
        seq: seq++,
        enter: () => {
          if (skipIf?.()) {
            resolve(undefined as T);
            return;
          }
          b.entered++;
          b.limiter.schedule(async () => {
            b.entered--;
            admit(b);
            return fn();
          }, { priority }).then(resolve, (err: unknown) => {
            // a job dropped by stop() never started
            if (b.entered > 0 && (err as Error)?.message?.includes('stopped')) b.entered = 0;
            reject(err);
          });
        },
        abandon: reject,
      };
      let i = b.waiting.length;
      while (i > 0 && (b.waiting[i - 1]!.priority > priority)) i--;
      b.waiting.splice(i, 0, w);
      admit(b);
    });
  }

  async function runThrough<T>(list: Bucket[], fn: () => Promise<T>, priority: number, skipIf?: () => boolean): Promise<T> {
    await waitUnblocked(list, false);
    const innermost = async () => {
      await waitUnblocked(list, true);
      if (skipIf?.()) return undefined as T;
      return fn();
    };
    let call: () => Promise<T> = innermost;
    for (const b of [...list].reverse()) {
      const next = call;
      call = () => through(b, priority, next, skipIf);
    }
    return call();
  }

  function bucketOf(budget: RateBudget): Bucket | undefined {
    if (!(budget.perMinute > 0) || !Number.isFinite(budget.perMinute)) return undefined;
    let b = buckets.get(budget.key);
    if (!b) {
      b = { budget, limiter: factory(budget), waiting: [], entered: 0, blockedUntil: 0, factor: 1, slowUntil: 0, slowNextAt: 0, active: 0, lastUsed: opts.now() };
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
    run<T>(budgets: readonly RateBudget[], fn: () => Promise<T>, runOpts?: RunOptions): Promise<T> {
      const list = budgets.map(bucketOf).filter((b): b is Bucket => b !== undefined);
      if (++runsSinceSweep >= 100) {
        runsSinceSweep = 0;
        sweep(opts.now());
      }
      const signal = runOpts?.signal;
      const skipIf = runOpts?.skipIf;
      const skip = signal ? () => signal.aborted || (skipIf?.() ?? false) : skipIf;
      let started = false;
      const call = (): Promise<T> => {
        started = true;
        return fn();
      };
      for (const b of list) b.active++;
      const done = runThrough(list, call, PRIORITY[runOpts?.priority ?? 'live'], skip).finally(() => {
        const now = opts.now();
        for (const b of list) {
          b.active--;
          b.lastUsed = now;
        }
      });
      if (!signal) return done;
      // Aborted before `fn` started: resolve at once; a job the limiter already holds becomes a no-op.
      return new Promise<T>((resolve, reject) => {
        const onAbort = (): void => {
          if (!started) resolve(undefined as T);
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
        done.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      });
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
      for (const b of buckets.values()) for (const w of b.waiting.splice(0)) w.abandon(new Error('the limiter pool was stopped'));
      await Promise.all([...buckets.values()].map((b) => b.limiter.stop()));
      buckets.clear();
    },
  };
}
