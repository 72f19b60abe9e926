/**
 * StateStore: the few primitives every backend of the bridge's state offers (SQLite embedded,
 * Redis shared, memory for unit tests). The typed records (state.ts) are built on these once, so
 * every backend behaves the same: one contract suite (test/contract/state-contract.ts) runs
 * against each, in the spirit of keyv's test-suite and Bottleneck's Local/Redis datastores.
 *
 * Values are JSON. A write resolves only once the backend holds it (SQLite: committed to the
 * WAL; Redis: acknowledged), so the bridge acts on nothing that a crash could lose.
 */
/**
 * One write of StateStore.write: what set / setIfNotExists / delete / push / removeItem do alone.
 * `claim` is setIfNotExists: written only if no live value is there, and its result says so.
 */
export type StateWrite =
  | { op: 'set'; ns: string; key: string; value: unknown; ttlMs?: number }
  | { op: 'claim'; ns: string; key: string; value: unknown; ttlMs?: number }
  | { op: 'delete'; ns: string; key: string }
  | { op: 'push'; list: string; id: string; value: unknown }
  | { op: 'removeItem'; list: string; id: string };

export interface StateStore {
  readonly backend: 'sqlite' | 'redis' | 'memory';
  get<T>(ns: string, key: string): Promise<T | undefined>;
  /** Write (replace) a value; `ttlMs` makes it expire. */
  set<T>(ns: string, key: string, value: T, ttlMs?: number): Promise<void>;
  /**
   * Write only if no live value is there: atomic across every client of the backend (several
   * replicas claiming one event id: exactly one gets true).
   */
  setIfNotExists<T>(ns: string, key: string, value: T, ttlMs?: number): Promise<boolean>;
  /**
   * setIfNotExists for several keys, all or none: every key is written only if none of them has
   * a live value, atomically across clients, in one commit (SQLite: a taken key costs no write,
   * so no fsync). True when written.
   */
  setIfNoneExist<T>(ns: string, keys: readonly string[], value: T, ttlMs?: number): Promise<boolean>;
  /** True when a live value was removed. */
  delete(ns: string, key: string): Promise<boolean>;
  /** Every live entry of a namespace. Meant for small namespaces read at start-up (the ledger). */
  entries<T>(ns: string): Promise<Array<{ key: string; value: T }>>;
  /**
   * Ordered lists (per-conversation queues): `push` appends at the tail; the order is the order in
   * which the backend accepted the pushes, across all clients. Pushing an id already in the list
   * replaces its value in place.
   */
  push<T>(list: string, id: string, value: T): Promise<void>;
  items<T>(list: string): Promise<Array<{ id: string; value: T }>>;
  removeItem(list: string, id: string): Promise<boolean>;
  /** Names of the lists that hold at least one item. */
  lists(): Promise<string[]>;
  /**
   * Several writes as one: all of them or none, in one commit (SQLite: one transaction, so one
   * fsync where each write alone costs one; Redis: one MULTI/EXEC). Each has the effect it has
   * alone, in the order given; a claim that finds a live value writes nothing and the others still
   * go. Resolves one boolean per write, in order: false only for a claim that was already taken.
   */
  write(writes: readonly StateWrite[]): Promise<boolean[]>;
  close(): Promise<void>;
}
