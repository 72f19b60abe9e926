/**
 * Keyv's job in the state: the plain key/TTL records, the ones read, replaced and removed one key
 * at a time with no set-if-absent claim and no place in a turn's multi-write commit (sessions,
 * reset marks, thread rules, access grants and pairing codes, worktrees, Run again records). Each
 * is a Keyv on a storage adapter of the project's own over the StateStore (`stateStoreAdapter`),
 * so the backend (SQLite, Redis, memory), the sealing of Redis records (sealed-store.ts, below the
 * adapter) and the TTLs stay the store's. Claims, commits, lists and listings stay on the
 * StateStore's own primitives: Keyv's get/set/delete cannot say them.
 *
 * The stored format is the StateStore's as before: Keyv's serialization is off, the adapter keeps
 * the bare value and hands the TTL to the store, and answers no `expires`, so an expiry is the
 * store's clock's alone (an injected one in tests, the server's on Redis). A Keyv namespace is the
 * key prefix inside the `kv` namespace (`rules:<conversation>`, as stored before); a record type
 * with a namespace of its own (`session`) uses none.
 *
 * Failures: the adapter emits them as Keyv `error` events (Keyv itself would drop a failed get
 * without one) and answers Keyv's failure values, undefined or false, which are the fallbacks the
 * state's methods declare; the events are logged with what the caller does instead. The guard
 * still bounds each call's time and counts it for `idle()`.
 */
import { Keyv, type DeserializedData, type KeyvStoreAdapter, type StoredData } from 'keyv';
import type { Logger } from '../log.js';
import type { Guard } from './guard.js';
import type { StateStore } from './store.js';

/** One failed store call, as the adapter emits it. */
class RecordFailure extends Error {
  constructor(readonly op: 'get' | 'set' | 'delete' | 'clear', readonly ns: string, readonly key: string, cause: unknown) {
    super(`state ${op} ${ns}/${key} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'RecordFailure';
  }
}

/** A Keyv storage adapter on one namespace of a StateStore: the key Keyv hands it is the store's key. */
function stateStoreAdapter(store: StateStore, ns: string): KeyvStoreAdapter {
  const listeners: Array<(failure: RecordFailure) => void> = [];
  const failed = (op: RecordFailure['op'], key: string, err: unknown) => {
    const failure = new RecordFailure(op, ns, key, err);
    for (const l of listeners) l(failure);
  };
  const adapter: KeyvStoreAdapter = {
    // Keyv reads opts only to decide on an iterator (opts.dialect / opts.url): none here.
    opts: {},
    on(event, listener) {
      if (event === 'error') listeners.push(listener);
      return adapter;
    },
    async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
      try {
        const value = await store.get<Value>(ns, key);
        return value === undefined ? undefined : { value };
      } catch (err) {
        failed('get', key, err);
        return undefined;
      }
    },
    async set(key: string, data: DeserializedData<unknown>, ttl?: number) {
      try {
        await store.set(ns, key, data.value, ttl);
        return true;
      } catch (err) {
        failed('set', key, err);
        return false;
      }
    },
    async delete(key: string) {
      try {
        return await store.delete(ns, key);
      } catch (err) {
        failed('delete', key, err);
        return false;
      }
    },
    async clear() {
      // `kv` holds claims and other records beside these: nothing is cleared wholesale.
      failed('clear', '*', new Error('the state is not cleared through Keyv'));
    },
  };
  return adapter;
}

/** One record type's records through Keyv: each call never throws; a failure answers undefined / false. */
export interface KeyvRecords<T> {
  get(key: string): Promise<T | undefined>;
  /** True once the store holds it. */
  set(key: string, value: T, ttlMs?: number): Promise<boolean>;
  /** True when a live value was removed. */
  delete(key: string): Promise<boolean>;
}

export interface RecordPlace {
  /** The StateStore namespace. */
  ns: string;
  /** Keyv's namespace: the key prefix inside `ns` (`rules` → `rules:<key>`). */
  namespace?: string;
  /** What the log calls a record ('session', 'grant'). */
  noun: string;
  /** What the caller does when the store fails (default: it goes on without it). */
  what?: string;
}

export function keyvRecords<T>(store: StateStore, guard: Guard, log: Logger, place: RecordPlace): KeyvRecords<T> {
  const { ns, namespace, noun, what = 'going on without it' } = place;
  const keyv = new Keyv<T>(stateStoreAdapter(store, ns), {
    namespace, useKeyPrefix: namespace !== undefined, serialize: undefined, deserialize: undefined,
  });
  keyv.on('error', (e: unknown) => {
    if (e instanceof RecordFailure) log.error({ err: e.cause, op: `${e.op} ${noun}`, key: e.key }, `store failed; ${what}`);
    else log.error({ err: e, op: noun }, `store failed; ${what}`);
  });
  /*
   * Keyv leaves a key that already starts with `<namespace>:` unprefixed, so `rules:x` would be
   * the record of `x`. No key the state makes looks so (conversation keys and identities start
   * with a platform, codes are upper case); one that does is refused rather than aliased.
   */
  const aliased = (op: string, key: string) => {
    if (namespace === undefined || !key.startsWith(`${namespace}:`)) return false;
    log.error({ op: `${op} ${noun}`, key }, `store refused a key that spells its own prefix; ${what}`);
    return true;
  };
  return {
    get: (key) => (aliased('get', key) ? Promise.resolve(undefined) : guard.run(`get ${noun}`, key, () => keyv.get(key), undefined, what)),
    set: (key, value, ttlMs) => (aliased('set', key) ? Promise.resolve(false) : guard.run(`set ${noun}`, key, () => keyv.set(key, value, ttlMs), false, what)),
    delete: (key) => (aliased('delete', key) ? Promise.resolve(false) : guard.run(`delete ${noun}`, key, () => keyv.delete(key), false, what)),
  };
}
