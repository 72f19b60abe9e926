/**
 * A StateStore whose every record carries a MAC under the bridge's key (TURNBRIDGE_BUS_KEY),
 * bound to where it is kept: the Redis state, which any process that can reach Redis can write.
 * Access grants, rules, the conversation's author, sessions, queued turns and the prompts of the
 * ledger all decide what runs and in whose name, so none of them is taken on trust: a record that
 * was not written by a replica holding the key, or was copied from another key, is ignored (as if
 * absent) and reported to `onRejected` (logged without its value).
 *
 * Stored value: `{ j: <the value's JSON>, m: <hex MAC> }`. The MAC covers the exact JSON bytes
 * (nothing is re-serialized before the check) and the place: `kv` + namespace + key, or `item` +
 * list + item id. A claim over several keys at once (setIfNoneExist) writes one value to each, so
 * it is bound to the namespace and the whole set of keys (`ks`), and reads check that the key
 * read is one of them.
 *
 * What it cannot stop: deleting records, or putting back an older record that was valid at the
 * same place (a grant removed since) — docs/security.md.
 */
import type { BusKey } from '../bus-key.js';
import type { StateStore, StateWrite } from './store.js';

interface Sealed {
  j: string;
  m: string;
  /** The keys of a setIfNoneExist claim. */
  ks?: string[];
}

/** Where a rejected record was (never its value). */
export interface RejectedRecord {
  place: 'kv' | 'item';
  /** Namespace (kv) or list name (item). */
  ns: string;
  key: string;
  reason: 'unsigned' | 'forged';
}

export interface SealedStoreOptions {
  key: BusKey;
  onRejected?: (r: RejectedRecord) => void;
}

export function sealStore(inner: StateStore, opts: SealedStoreOptions): StateStore {
  const { key } = opts;
  const kvParts = (ns: string, k: string, j: string) => ['kv', ns, k, j];
  const setParts = (ns: string, ks: readonly string[], j: string) => ['kvset', ns, JSON.stringify(ks), j];
  const itemParts = (list: string, id: string, j: string) => ['item', list, id, j];

  const sealKv = (ns: string, k: string, value: unknown): Sealed => {
    const j = JSON.stringify(value);
    return { j, m: key.mac('state', kvParts(ns, k, j)) };
  };
  const sealItem = (list: string, id: string, value: unknown): Sealed => {
    const j = JSON.stringify(value);
    return { j, m: key.mac('state', itemParts(list, id, j)) };
  };

  function open<T>(place: RejectedRecord['place'], ns: string, k: string, raw: unknown): T | undefined {
    if (raw === undefined) return undefined;
    const s = raw as Partial<Sealed> | null;
    const shaped = s !== null && typeof s === 'object' && typeof s.j === 'string' && typeof s.m === 'string';
    let ok = false;
    if (shaped) {
      const j = s.j!;
      if (place === 'item') ok = key.verify('state', itemParts(ns, k, j), s.m!);
      else if (Array.isArray(s.ks)) ok = s.ks.includes(k) && s.ks.every((x) => typeof x === 'string') && key.verify('state', setParts(ns, s.ks, j), s.m!);
      else ok = key.verify('state', kvParts(ns, k, j), s.m!);
    }
    if (!ok) {
      opts.onRejected?.({ place, ns, key: k, reason: shaped ? 'forged' : 'unsigned' });
      return undefined;
    }
    return JSON.parse(s!.j!) as T;
  }

  /** The rows whose seal holds, opened (the others are reported and left out). */
  function opened<T, R extends { value: unknown }>(place: RejectedRecord['place'], ns: string, rows: readonly R[], idOf: (r: R) => string): Array<Omit<R, 'value'> & { value: T }> {
    return rows.flatMap((r) => {
      const value = open<T>(place, ns, idOf(r), r.value);
      return value === undefined ? [] : [{ ...r, value }];
    });
  }

  const sealWrite = (w: StateWrite): StateWrite => {
    if (w.op === 'set' || w.op === 'claim') return { ...w, value: sealKv(w.ns, w.key, w.value) };
    if (w.op === 'push') return { ...w, value: sealItem(w.list, w.id, w.value) };
    return w;
  };
  // Every method is async: a value that cannot be serialized rejects, as the inner store's would.

  return {
    backend: inner.backend,
    get: async <T>(ns: string, k: string) => open<T>('kv', ns, k, await inner.get(ns, k)),
    set: async (ns, k, value, ttlMs) => inner.set(ns, k, sealKv(ns, k, value), ttlMs),
    setIfNotExists: async (ns, k, value, ttlMs) => inner.setIfNotExists(ns, k, sealKv(ns, k, value), ttlMs),
    async setIfNoneExist(ns, keys, value, ttlMs) {
      const j = JSON.stringify(value);
      const ks = [...keys];
      const sealed: Sealed = { j, m: key.mac('state', setParts(ns, ks, j)), ks };
      return inner.setIfNoneExist(ns, keys, sealed, ttlMs);
    },
    delete: (ns, k) => inner.delete(ns, k),
    entries: async <T>(ns: string) => opened<T, { key: string; value: unknown }>('kv', ns, await inner.entries(ns), (e) => e.key),
    push: async (list, id, value) => inner.push(list, id, sealItem(list, id, value)),
    items: async <T>(list: string) => opened<T, { id: string; value: unknown }>('item', list, await inner.items(list), (i) => i.id),
    removeItem: (list, id) => inner.removeItem(list, id),
    lists: () => inner.lists(),
    write: async (writes) => inner.write(writes.map(sealWrite)),
    close: () => inner.close(),
  };
}
