/**
 * Several replicas, opt-in (TURNBRIDGE_SHARED_MAX_CONCURRENT / shared_max_concurrent): at most
 * `limit` agent turns run at once across every replica. Each running turn holds one lock of a
 * redis-semaphore counting Semaphore (a sorted set in Redis), refreshed while it runs and released
 * when it ends; a replica killed -9 stops refreshing, so its locks lapse after `lockTimeoutMs`
 * and the cap heals by itself. The local max_concurrent still applies on top.
 *
 * The turn queue (bridge/turns/turn-queue.ts) decides which turn gets a slot, in its own order: this
 * module only keeps one acquisition going while the queue wants a slot (one at a time, so a
 * replica never holds slots nobody here asked for) and hands it over through take().
 *
 * Redis away (redis/ says degraded): the cap falls back to the local one (every take() answers
 * at once), with one warning, state `degraded` on /readyz and /metrics, until Redis is back.
 * Turns keep running rather than wait on a store that is not there.
 */
import type { Semaphore } from 'redis-semaphore';
import type { Logger } from '../log.js';
import { followSharing, type RedisConnections, type SharingState } from '../redis/index.js';
import { RefreshSafeSemaphore } from './refresh-safe-locks.js';

/** `connecting` until Redis first answers; `degraded` while it does not (local cap only). */
export type SharedSlotsState = SharingState;

/** A slot given to a turn: a lock in Redis, or (Redis away) a local stand-in that holds nothing. */
export type SharedPermit = { readonly kind: 'shared'; readonly lock: Semaphore } | { readonly kind: 'local' };

export interface SharedSlots {
  readonly limit: number;
  readonly state: SharedSlotsState;
  /** Locks this replica holds in Redis now (running turns, plus one being handed over). */
  readonly held: number;
  /** A slot free for a turn now; undefined: none yet, one is being acquired (then onAvailable). */
  take(): SharedPermit | undefined;
  /** The turn ended, parked on a prompt or was handed over: its slot goes back. */
  release(permit: SharedPermit): void;
  /** Called when a slot was acquired (the queue pumps; a slot nobody takes goes back at once). */
  onAvailable(fn: () => void): void;
  /** Stop acquiring, release what is still held. */
  close(): Promise<void>;
}

export interface SharedSlotsOptions {
  /** The process's Redis connections (redis/); their health decides shared or local. */
  redis: RedisConnections;
  limit: number;
  logger: Logger;
  /** Key prefix (default `tb`). */
  prefix?: string;
  /** A lock lapses this long after its holder stopped refreshing it (default 30 s). */
  lockTimeoutMs?: number;
  /** How often a waiting replica tries again while the cap is reached (default 100 ms). */
  retryIntervalMs?: number;
}

const LOCAL: SharedPermit = { kind: 'local' };

export function createSharedSlots(opts: SharedSlotsOptions): SharedSlots {
  const key = `${opts.prefix ?? 'tb'}:shared-slots`;
  const lockTimeout = opts.lockTimeoutMs ?? 30_000;
  const retryInterval = opts.retryIntervalMs ?? 100;
  const logger = opts.logger.child({ component: 'shared-slots', limit: opts.limit });
  const redis = opts.redis.commands;
  const abort = new AbortController();
  const held = new Set<Semaphore>();
  const idle: SharedPermit[] = [];
  const releasing = new Set<Promise<void>>();
  const listeners: Array<() => void> = [];
  let acquiring: Promise<void> | undefined;
  /** The queue asked for a slot that is not there yet (one more acquisition after this one). */
  let wanted = false;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  const sharing = followSharing(opts.redis, (next, was, err) => {
    if (next === 'shared') {
      logger.info({ was }, 'agent slots shared by every replica through Redis');
      if (wanted) kick();
    } else if (next === 'degraded') {
      logger.warn({ err: err?.message }, 'Redis unreachable: the shared cap on running turns is off, each replica runs up to its own max_concurrent until Redis is back');
      notify(); // turns waiting for a shared slot go on under the local cap
    }
  });

  function kick(): void {
    if (acquiring || closed || sharing.state === 'degraded') return;
    wanted = false;
    acquiring = acquire().finally(() => {
      acquiring = undefined;
      if (wanted) kick();
    });
  }

  function notify(): void {
    for (const fn of listeners) fn();
  }

  function lock(): Semaphore {
    const l: Semaphore = new RefreshSafeSemaphore(redis, key, opts.limit, {
      lockTimeout,
      refreshInterval: Math.max(1, Math.floor(lockTimeout / 3)),
      retryInterval,
      acquireTimeout: Number.POSITIVE_INFINITY,
      onLockLost: (err) => {
        held.delete(l);
        logger.warn({ err: err.message }, 'a shared agent slot lapsed while its turn runs (Redis away or too slow); the turn goes on, the cap may be passed until it ends');
      },
    }, (err) => logger.debug({ err: (err as Error)?.message }, 'a shared slot was not refreshed (Redis away?); it lapses by its timeout'));
    return l;
  }

  async function acquire(): Promise<void> {
    const l = lock();
    try {
      if (!(await l.tryAcquire(abort.signal))) return;
    } catch (err) {
      // Redis away: the health says so and turns go on under the local cap. Up, yet failing:
      // try again shortly, so a waiting turn is not left waiting for good.
      if (!closed && opts.redis.health === 'up') {
        logger.warn({ err: (err as Error)?.message }, 'a shared agent slot could not be acquired; trying again');
        wanted = true;
        clearTimeout(retry);
        retry = setTimeout(kick, retryInterval);
        retry.unref();
      }
      return;
    }
    if (closed) {
      await l.release().catch(() => undefined);
      return;
    }
    held.add(l);
    const permit: SharedPermit = { kind: 'shared', lock: l };
    idle.push(permit);
    notify();
    // Nobody wanted it after all (the waiting turn was stopped meanwhile): give it back.
    const i = idle.indexOf(permit);
    if (i >= 0) {
      idle.splice(i, 1);
      slots.release(permit);
    }
  }

  const slots: SharedSlots = {
    limit: opts.limit,
    get state() {
      return sharing.state;
    },
    get held() {
      return held.size;
    },
    take() {
      if (sharing.state === 'degraded' || closed) return LOCAL;
      const p = idle.shift();
      if (p) return p;
      wanted = true;
      kick();
      return undefined;
    },
    release(permit) {
      if (permit.kind !== 'shared') return;
      held.delete(permit.lock);
      const r = permit.lock.release().catch((err: Error) => logger.debug({ err: err.message }, 'shared slot not released (Redis away); it lapses after the lock timeout'));
      releasing.add(r);
      void r.finally(() => releasing.delete(r));
    },
    onAvailable(fn) {
      listeners.push(fn);
    },
    async close() {
      closed = true;
      sharing.stop();
      clearTimeout(retry);
      abort.abort(new Error('closing'));
      await acquiring;
      for (const p of idle.splice(0)) slots.release(p);
      for (const l of [...held]) slots.release({ kind: 'shared', lock: l });
      await Promise.allSettled([...releasing]);
    },
  };
  return slots;
}
