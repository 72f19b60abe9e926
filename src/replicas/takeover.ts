/**
 * A replica dies (kill -9, OOM, host lost) or is drained (SIGTERM): its heartbeat goes, and what
 * its ledger holds (live replies, open prompts, queued turns) waits for someone. Every surviving
 * replica watches for departed replicas; exactly one of them takes each over, under a mutex in
 * Redis (redis-semaphore: SET NX PX with a refresh while it works), and runs the crash recovery
 * for the departed replica's ledger (recovery.ts, by holder id).
 *
 * A replica that starts again with the same TURNBRIDGE_REPLICA_ID runs its own recovery under the
 * same mutex: when a taker is at it, the restarted replica waits for it to finish and then finds
 * only what the taker left for it (agent processes on another host or pid namespace, which only it
 * may end; the taker ends those on its own host).
 */
import type { Logger } from '../log.js';
import type { RedisConnections } from '../redis/index.js';
import { RefreshSafeMutex } from './refresh-safe-locks.js';
import type { ReplicaBus } from './replica-bus.js';

export interface TakeoverOptions {
  bus: ReplicaBus;
  /** The process's Redis connections (redis/); a sweep waits while Redis is away. */
  redis: RedisConnections;
  logger: Logger;
  /** Run the crash recovery of `holder`'s ledger here; resolves with how many records it left. */
  recover(holder: string): Promise<{ left: number }>;
  /** How often to look for departed replicas (default 5 s: a third of the default heartbeat). */
  everyMs?: number;
  /** Key prefix (default `tb`). */
  prefix?: string;
  /** The mutex expires this long after its holder stopped refreshing it (default 30 s). */
  lockTimeoutMs?: number;
}

export interface Takeover {
  /**
   * Run this replica's own start-up recovery under its claim: a taker already at it finishes
   * first (the wait is bounded by the lock timeout of a taker that died meanwhile).
   */
  own<T>(fn: () => Promise<T>): Promise<T>;
  /** Look once for departed replicas and take over each one not claimed by another survivor. */
  sweep(): Promise<string[]>;
  /** Sweep every `everyMs` from now on. */
  start(): void;
  close(): Promise<void>;
}

export function createTakeover(opts: TakeoverOptions): Takeover {
  const prefix = opts.prefix ?? 'tb';
  const everyMs = opts.everyMs ?? 5_000;
  const lockTimeout = opts.lockTimeoutMs ?? 30_000;
  const logger = opts.logger.child({ component: 'takeover', replica: opts.bus.id });
  const redis = opts.redis.commands;
  /** `once`: one attempt (a sweep: someone else has it); else wait up to twice the lock timeout. */
  // Refresh-safe: Redis going away mid-takeover must not end this replica (see refresh-safe-locks.ts).
  const mutex = (holder: string, once: boolean) => new RefreshSafeMutex(redis, `${prefix}:takeover:${holder}`, {
    lockTimeout, acquireTimeout: lockTimeout * 2, ...(once ? { acquireAttemptsLimit: 1 } : {}), retryInterval: 100, refreshInterval: Math.floor(lockTimeout / 3),
    onLockLost: (err) => logger.warn({ holder, err: err.message }, 'takeover claim lost while recovering (Redis away?); each recovery step is safe to repeat'),
  }, (err) => logger.warn({ holder, err: (err as Error).message }, 'takeover claim could not be refreshed (Redis away?); it lapses by its timeout'));
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<string[]> | undefined;
  let closed = false;

  async function takeOver(holder: string): Promise<boolean> {
    const m = mutex(holder, true);
    if (!(await m.tryAcquire())) return false; // another survivor (or the replica itself, back) is at it
    try {
      // Claimed: is it still gone? A replica that came back recovers its own ledger.
      if (await opts.bus.alive(holder)) return false;
      logger.warn({ departed: holder }, 'a replica is gone: taking over its replies, prompts and queued turns');
      const { left } = await opts.recover(holder);
      // Agent records of another host stay for the replica itself (only it can end them): not "left".
      if (left === 0) await opts.bus.forget(holder);
      logger.info({ departed: holder, left }, 'takeover done');
      return true;
    } finally {
      await m.release().catch(() => undefined);
    }
  }

  async function sweep(): Promise<string[]> {
    if (closed || opts.redis.health === 'degraded') return [];
    const gone = await opts.bus.departed().catch((err: Error) => {
      logger.debug({ err: err.message }, 'departed replicas not listed (Redis unreachable)');
      return [] as string[];
    });
    const taken: string[] = [];
    for (const holder of gone) {
      if (closed) break;
      try {
        if (await takeOver(holder)) taken.push(holder);
      } catch (err) {
        logger.warn({ departed: holder, err: (err as Error).message }, 'takeover failed; the next sweep tries again');
      }
    }
    return taken;
  }

  return {
    async own(fn) {
      const m = mutex(opts.bus.id, false);
      const held = await m.acquire().then(() => true, (err: Error) => {
        logger.warn({ err: err.message }, 'own recovery claim not taken (Redis away or a taker stuck); recovering anyway');
        return false;
      });
      try {
        return await fn();
      } finally {
        if (held) await m.release().catch(() => undefined);
      }
    },
    sweep() {
      sweeping ??= sweep().finally(() => (sweeping = undefined));
      return sweeping;
    },
    start() {
      if (timer || closed) return;
      timer = setInterval(() => void this.sweep(), everyMs);
      timer.unref();
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await sweeping?.catch(() => undefined);
    },
  };
}
