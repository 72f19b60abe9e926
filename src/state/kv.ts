/**
 * A small key-value interface over the bridge's keyv store, for state kept per conversation
 * besides the session (permission rules, the auto-approve notice, the audit trail). Keys are
 * namespaced by the caller (`rules:<conversation>`); a later state module can implement the same
 * interface on another backend. Never throws: a failure or a slow store is logged and answers
 * the fallback, so a turn never fails because of it.
 */
import type Keyv from 'keyv';
import type { Logger } from '../log.js';
import type { StateStore } from './store.js';

export interface KvStore {
  get<T>(key: string): Promise<T | undefined>;
  /** Resolves true when the store accepted the value. `ttlMs` absent = kept until deleted. */
  set(key: string, value: unknown, ttlMs?: number): Promise<boolean>;
  delete(key: string): Promise<boolean>;
  /**
   * Every live entry whose key starts with `prefix` (small sets the CLI lists: grants); undefined
   * when the store failed. Absent = the backend cannot list.
   */
  entries?<T>(prefix: string): Promise<Array<{ key: string; value: T }> | undefined>;
}

/** Runs store operations with a time bound; on failure or timeout logs and answers the fallback. */
export interface GuardedOps {
  run<T>(op: string, key: string, fn: () => Promise<T>, fallback: T): Promise<T>;
  /** Resolves when every operation started so far has settled. */
  drain(): Promise<void>;
}

/**
 * The one guard every store wrapper uses (sessions, grants, rules, the state): `what` says in the
 * log what the caller does instead; each call gives its own fallback. `timeoutMs` undefined = no
 * time bound (a store the caller injected, which may be slow on purpose).
 */
export function createGuardedOps(log: Logger, timeoutMs: number | undefined, what: string): GuardedOps {
  const pending = new Set<Promise<unknown>>();
  return {
    async run<T>(op: string, key: string, fn: () => Promise<T>, fallback: T): Promise<T> {
      let timer: NodeJS.Timeout | undefined;
      let work: Promise<T>;
      try {
        work = fn();
      } catch (err) {
        log.error({ err, op, key }, `store failed; ${what}`);
        return fallback;
      }
      pending.add(work);
      const done = () => pending.delete(work);
      work.then(done, done);
      try {
        if (timeoutMs === undefined) return await work;
        return await Promise.race([
          work,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`store ${op} took longer than ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } catch (err) {
        log.error({ err, op, key }, `store failed; ${what}`);
        return fallback;
      } finally {
        clearTimeout(timer);
      }
    },
    async drain() {
      await Promise.allSettled([...pending]);
    },
  };
}

export function createKv(keyv: Keyv, logger: Logger, opts: { opTimeoutMs?: number } = {}): KvStore & { drain(): Promise<void> } {
  const ops = createGuardedOps(logger.child({ component: 'kv' }), opts.opTimeoutMs ?? 3000, 'going on without it');
  return {
    async get<T>(key: string) {
      const v = await ops.run('get', key, () => keyv.get<T>(key), undefined);
      return v === null ? undefined : v;
    },
    set: (key, value, ttlMs) => ops.run('set', key, () => keyv.set(key, value, ttlMs), false),
    delete: (key) => ops.run('delete', key, () => keyv.delete(key), false),
    drain: () => ops.drain(),
  };
}

/**
 * The same KvStore on the bridge state (SQLite in WAL mode, or Redis): what is written is on
 * disk (or acknowledged by Redis) before the call resolves, so a kill -9 keeps rules, notices
 * and the audit trail, and every replica on one Redis sees the same ones.
 */
export function createStateKv(store: StateStore, logger: Logger, opts: { opTimeoutMs?: number; what?: string } = {}): KvStore & { drain(): Promise<void> } {
  const ops = createGuardedOps(logger.child({ component: 'kv' }), opts.opTimeoutMs ?? 3000, opts.what ?? 'going on without it');
  return {
    get: <T>(key: string) => ops.run('get', key, () => store.get<T>('kv', key), undefined),
    set: (key, value, ttlMs) => ops.run('set', key, async () => {
      await store.set('kv', key, value, ttlMs);
      return true;
    }, false),
    delete: (key) => ops.run('delete', key, () => store.delete('kv', key), false),
    entries: <T>(prefix: string) => ops.run<Array<{ key: string; value: T }> | undefined>('entries', `${prefix}*`, async () => (await store.entries<T>('kv')).filter((e) => e.key.startsWith(prefix)), undefined),
    drain: () => ops.drain(),
  };
}
