/**
 * Platform budgets shared by every replica: one bottleneck limiter per RateBudget, clustered
 * on Redis (bottleneck's own clustering over ioredis), so N replicas together spend what one
 * may. Pacing state (next start, reservoir) lives in Redis and uses Redis' clock; priorities
 * and waiting order stay local, which is what the limiter pool needs (final edits first).
 *
 * While Redis cannot be reached (redis/ says degraded; and until it first connects) the limiters
 * pace locally (each replica on its own full budget): replies keep flowing, a 429 then slows the
 * bucket down as usual, and the state is "degraded" until Redis is back.
 */
import Bottleneck from 'bottleneck';
import type { Logger } from '../../log.js';
import { followSharing, type RedisConnections, type SharingState } from '../../redis/index.js';
import { bottleneckSettings, createBottleneckLimiter, DEFAULT_PRIORITY, type LimiterFactory, type RateLimiter } from './limiter-pool.js';
import type { RateBudget } from '../surface.js';

/** `connecting` until Redis first answers; `degraded` while it does not. */
export type SharedBudgetState = SharingState;

export interface SharedLimiters {
  /** A LimiterFactory for the limiter pool (createDelivery's `limiterFactory`). */
  readonly factory: LimiterFactory;
  readonly state: SharedBudgetState;
  /** Waits for the first connection (resolves false when Redis did not answer in time). */
  ready(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface SharedLimitersOptions {
  /** The process's Redis connections (redis/): Bottleneck's connection is made on them. */
  redis: RedisConnections;
  logger: Logger;
  /** Key prefix in Redis (default `tb`), so several bridges can share one Redis. */
  prefix?: string;
  /**
   * How long a budget's keys live in Redis after their last use (default 30 min). Redis then
   * forgets budgets of channels nobody writes to.
   */
  keyTtlMs?: number;
}

/** Redis ≥ 7 prefixes script errors with "ERR "; bottleneck 2.19.5 compares them exactly. */
const SETTINGS_GONE = /SETTINGS_KEY_NOT_FOUND/;

export function createSharedLimiters(opts: SharedLimitersOptions): SharedLimiters {
  const prefix = opts.prefix ?? 'tb';
  const keyTtlMs = opts.keyTtlMs ?? 30 * 60_000;
  const logger = opts.logger.child({ component: 'shared-budgets' });
  const connection = opts.redis.bottleneck();
  const sharing = followSharing(opts.redis, (next, was, err) => {
    if (next === 'shared') logger.info({ was }, 'platform budgets shared through Redis');
    else if (next === 'degraded') logger.warn({ err: err?.message }, 'Redis unreachable: platform budgets paced by this replica alone until it is back');
  });
  // bottleneck's typings declare ready() a method; in 2.19.5 it is the promise itself.
  const ready = (connection as unknown as { ready: Promise<unknown> }).ready.then(() => true, () => false);
  connection.on('error', (err: Error) => logger.debug({ err: err.message }, 'bottleneck redis connection error'));

  const factory: LimiterFactory = (budget) => sharedLimiter(budget);

  function clustered(budget: RateBudget): Bottleneck {
    const limiter = new Bottleneck({
      ...bottleneckSettings(budget),
      // The settings are part of the id: the first limiter's settings win in Redis, so a
      // deploy that changes a budget must not keep pacing by the old one.
      id: `${prefix}:${budget.key}:${budget.perMinute}/${budget.burst ?? 1}`,
      datastore: 'ioredis',
      connection,
      timeout: keyTtlMs,
      clearDatastore: false,
    });
    limiter.on('error', (err: Error) => logger.debug({ err: err.message, bucket: budget.key }, 'clustered limiter error'));
    return limiter;
  }

  function sharedLimiter(budget: RateBudget): RateLimiter {
    let limiter = clustered(budget);
    let local: RateLimiter | undefined;
    const fallback = (): RateLimiter => (local ??= createBottleneckLimiter(budget));

    async function schedule<T>(fn: () => Promise<T>, o?: { priority?: number }): Promise<T> {
      if (sharing.state !== 'shared') return fallback().schedule(fn, o);
      let started = false;
      const job = (): Promise<T> => {
        started = true;
        return fn();
      };
      const priority = o?.priority ?? DEFAULT_PRIORITY;
      try {
        return await limiter.schedule({ priority, expiration: undefined }, job);
      } catch (err) {
        if (started) throw err; // the operation's own failure, not the limiter's
        if (SETTINGS_GONE.test((err as Error)?.message ?? '')) {
          // The budget's keys expired in Redis (idle longer than keyTtlMs): register it again.
          const gone = limiter;
          limiter = clustered(budget);
          void gone.stop({ dropWaitingJobs: false }).catch(() => undefined);
          return limiter.schedule({ priority }, job);
        }
        // Redis failing says so through its health; this job is paced here meanwhile.
        logger.debug({ err: (err as Error)?.message, bucket: budget.key }, 'clustered limiter failed; this job is paced locally');
        return fallback().schedule(job, o);
      }
    }

    return {
      schedule,
      async stop() {
        await limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
        await local?.stop();
      },
    };
  }

  return {
    factory,
    get state() {
      return sharing.state;
    },
    async ready(timeoutMs = 3_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
      const ok = await Promise.race([ready, timeout]);
      clearTimeout(timer);
      return ok;
    },
    async close() {
      // The connection is the process's (redis/), closed by its owner.
      sharing.stop();
    },
  };
}
