/**
 * The StateStore in this process's memory, for unit tests: the same contract as SQLite and Redis
 * (test/contract/state-contract.ts runs against it), nothing on disk. Values are kept as JSON
 * text, so what is read back is a copy, and a value that cannot be serialized rejects its write
 * as the other backends do. Several stores on one `MemoryData` are several clients of one backend
 * (a restart, a second replica).
 */
import type { StateStore, StateWrite } from './store.js';

/** What the stores of one backend share. */
export interface MemoryData {
  kv: Map<string, { json: string; expiresAt?: number }>;
  /** List name -> item id -> JSON, in push order (a Map keeps the order of first insertion). */
  lists: Map<string, Map<string, string>>;
}

export function memoryData(): MemoryData {
  return { kv: new Map(), lists: new Map() };
}

export interface MemoryStoreOptions {
  /** Default: a fresh backend of its own. */
  data?: MemoryData;
  now?: () => number;
}

/** One serialized write: the JSON made before anything changes, so a batch is all or nothing. */
type Ready = { w: StateWrite; json?: string };

export function createMemoryStore(opts: MemoryStoreOptions = {}): StateStore {
  const data = opts.data ?? memoryData();
  const now = opts.now ?? Date.now;
  let closed = false;
  const k = (ns: string, key: string) => `${ns}\u0000${key}`;
  const live = (ns: string, key: string) => {
    const e = data.kv.get(k(ns, key));
    if (e?.expiresAt !== undefined && e.expiresAt <= now()) {
      data.kv.delete(k(ns, key));
      return undefined;
    }
    return e;
  };
  const expiry = (ttlMs?: number) => (ttlMs !== undefined ? { expiresAt: now() + Math.max(1, ttlMs) } : {});
  const json = (value: unknown): string => {
    const s = JSON.stringify(value);
    if (s === undefined) throw new Error('the state keeps JSON values; this one has no JSON form');
    return s;
  };
  const open = () => {
    if (closed) throw new Error('the state store is closed');
  };
  const apply = ({ w, json: j }: Ready): boolean => {
    if (w.op === 'set') data.kv.set(k(w.ns, w.key), { json: j!, ...expiry(w.ttlMs) });
    else if (w.op === 'claim') {
      if (live(w.ns, w.key)) return false;
      data.kv.set(k(w.ns, w.key), { json: j!, ...expiry(w.ttlMs) });
    } else if (w.op === 'delete') data.kv.delete(k(w.ns, w.key));
    else if (w.op === 'push') {
      const list = data.lists.get(w.list) ?? new Map<string, string>();
      data.lists.set(w.list, list);
      list.set(w.id, j!);
    } else data.lists.get(w.list)?.delete(w.id);
    return true;
  };
  const prepare = (w: StateWrite): Ready => (w.op === 'set' || w.op === 'claim' || w.op === 'push' ? { w, json: json(w.value) } : { w });

  return {
    backend: 'memory',
    async get<T>(ns: string, key: string) {
      open();
      const e = live(ns, key);
      return e ? (JSON.parse(e.json) as T) : undefined;
    },
    async set(ns, key, value, ttlMs) {
      open();
      apply(prepare({ op: 'set', ns, key, value, ...(ttlMs !== undefined ? { ttlMs } : {}) }));
    },
    async setIfNotExists(ns, key, value, ttlMs) {
      open();
      return apply(prepare({ op: 'claim', ns, key, value, ...(ttlMs !== undefined ? { ttlMs } : {}) }));
    },
    async setIfNoneExist(ns, keys, value, ttlMs) {
      open();
      const j = json(value);
      if (keys.some((key) => live(ns, key))) return false;
      for (const key of keys) data.kv.set(k(ns, key), { json: j, ...expiry(ttlMs) });
      return true;
    },
    async delete(ns, key) {
      open();
      const was = live(ns, key) !== undefined;
      data.kv.delete(k(ns, key));
      return was;
    },
    async entries<T>(ns: string) {
      open();
      const head = k(ns, '');
      const keys = [...data.kv.keys()].filter((x) => x.startsWith(head)).map((x) => x.slice(head.length)).sort();
      return keys.flatMap((key) => {
        const e = live(ns, key);
        return e ? [{ key, value: JSON.parse(e.json) as T }] : [];
      });
    },
    async push(list, id, value) {
      open();
      apply(prepare({ op: 'push', list, id, value }));
    },
    async items<T>(list: string) {
      open();
      return [...(data.lists.get(list) ?? new Map<string, string>())].map(([id, j]) => ({ id, value: JSON.parse(j) as T }));
    },
    async removeItem(list, id) {
      open();
      return data.lists.get(list)?.delete(id) ?? false;
    },
    async lists() {
      open();
      return [...data.lists].filter(([, items]) => items.size > 0).map(([name]) => name).sort();
    },
    async write(writes) {
      open();
      const ready = writes.map(prepare);
      return ready.map(apply);
    },
    async close() {
      closed = true;
    },
  };
}
