/**
 * The embedded StateStore: one SQLite file in WAL mode through better-sqlite3.
 *
 * Why better-sqlite3: its calls are synchronous, so a write has been committed when the call
 * returns (keyv's SQLite adapter goes through the asynchronous `sqlite3` package, and keyv-file
 * batched writes behind a delay). `synchronous = FULL` also fsyncs the WAL at each commit, so a
 * host crash loses nothing either; WAL keeps readers off the writer's way.
 */
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ensurePrivateDir, ensurePrivateFile, tightenFile, type PrivateDirMode } from './private-files.js';
import type { StateStore, StateWrite } from './store.js';

export interface SqliteStoreOptions {
  /** Database file (':memory:' for a throwaway store). */
  file: string;
  now?: () => number;
  /** The directory's mode (default 0700; privateDirMode() with run_as). */
  dirMode?: PrivateDirMode;
  /** Told of each existing file or directory found wider than it must be, and tightened. */
  onTightened?: (path: string) => void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  ns TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, expires_at INTEGER,
  PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS items (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, list TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL,
  UNIQUE (list, id)
);
`;

/**
 * The directory 0700 and the database 0600 before SQLite opens it: SQLite makes its -wal and
 * -shm files with the database file's mode (and owner), so they are 0600 from their first byte.
 * Files of an older run found wider are tightened.
 */
function closeFiles(file: string, opts: SqliteStoreOptions): void {
  const dir = dirname(file);
  if (ensurePrivateDir(dir, opts.dirMode) === 'tightened') opts.onTightened?.(dir);
  if (ensurePrivateFile(file) === 'tightened') opts.onTightened?.(file);
  for (const f of [`${file}-wal`, `${file}-shm`, `${file}-journal`]) if (tightenFile(f) === 'tightened') opts.onTightened?.(f);
}

/** Expired rows are swept after this many TTL writes (reads ignore them anyway). */
const SWEEP_EVERY = 500;

export function createSqliteStore(opts: SqliteStoreOptions): StateStore {
  const now = opts.now ?? Date.now;
  if (opts.file !== ':memory:') closeFiles(opts.file, opts);
  const db = new Database(opts.file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);

  const q = {
    get: db.prepare<[string, string, number], { value: string }>('SELECT value FROM kv WHERE ns = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)'),
    set: db.prepare('INSERT INTO kv (ns, key, value, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at'),
    dropExpired: db.prepare('DELETE FROM kv WHERE ns = ? AND key = ? AND expires_at IS NOT NULL AND expires_at <= ?'),
    insert: db.prepare('INSERT OR IGNORE INTO kv (ns, key, value, expires_at) VALUES (?, ?, ?, ?)'),
    del: db.prepare('DELETE FROM kv WHERE ns = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)'),
    delAny: db.prepare('DELETE FROM kv WHERE ns = ? AND key = ?'),
    entries: db.prepare<[string, number], { key: string; value: string }>('SELECT key, value FROM kv WHERE ns = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY key'),
    sweep: db.prepare('DELETE FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    itemUpdate: db.prepare('UPDATE items SET value = ? WHERE list = ? AND id = ?'),
    itemInsert: db.prepare('INSERT INTO items (list, id, value) VALUES (?, ?, ?)'),
    items: db.prepare<[string], { id: string; value: string }>('SELECT id, value FROM items WHERE list = ? ORDER BY seq'),
    itemDel: db.prepare('DELETE FROM items WHERE list = ? AND id = ?'),
    lists: db.prepare<[], { list: string }>('SELECT DISTINCT list FROM items ORDER BY list'),
  };
  let ttlWrites = 0;
  let closed = false;
  const expiry = (ttlMs?: number) => (ttlMs !== undefined ? now() + Math.max(1, ttlMs) : null);
  const sweep = () => {
    if (++ttlWrites % SWEEP_EVERY === 0) q.sweep.run(now());
  };
  const claimOne = (ns: string, key: string, json: string, at: number | null): boolean => {
    q.dropExpired.run(ns, key, now());
    return q.insert.run(ns, key, json, at).changes === 1;
  };
  const claim = db.transaction(claimOne);
  const claimAll = db.transaction((ns: string, keys: readonly string[], json: string, at: number | null): boolean => {
    const t = now();
    if (keys.some((key) => q.get.get(ns, key, t) !== undefined)) return false;
    for (const key of keys) claimOne(ns, key, json, at);
    return true;
  });
  const push = db.transaction((list: string, id: string, json: string) => {
    if (q.itemUpdate.run(json, list, id).changes === 0) q.itemInsert.run(list, id, json);
  });
  const del = (ns: string, key: string): boolean => {
    const removed = q.del.run(ns, key, now()).changes > 0;
    q.delAny.run(ns, key);
    return removed;
  };
  const removeDel = db.transaction(del);
  const batch = db.transaction((writes: readonly StateWrite[]): boolean[] => writes.map((w) => {
    if (w.op === 'set') q.set.run(w.ns, w.key, JSON.stringify(w.value), expiry(w.ttlMs));
    else if (w.op === 'claim') return claimOne(w.ns, w.key, JSON.stringify(w.value), expiry(w.ttlMs));
    else if (w.op === 'delete') del(w.ns, w.key);
    else if (w.op === 'push') push(w.list, w.id, JSON.stringify(w.value));
    else q.itemDel.run(w.list, w.id);
    return true;
  }));
  const parse = <T>(s: string): T => JSON.parse(s) as T;
  const open = () => {
    if (closed) throw new Error('the state store is closed');
  };

  return {
    backend: 'sqlite',
    async get<T>(ns: string, key: string) {
      open();
      const row = q.get.get(ns, key, now());
      return row ? parse<T>(row.value) : undefined;
    },
    async set(ns, key, value, ttlMs) {
      open();
      q.set.run(ns, key, JSON.stringify(value), expiry(ttlMs));
      if (ttlMs !== undefined) sweep();
    },
    async setIfNotExists(ns, key, value, ttlMs) {
      open();
      const wrote = claim(ns, key, JSON.stringify(value), expiry(ttlMs));
      if (ttlMs !== undefined) sweep();
      return wrote;
    },
    async setIfNoneExist(ns, keys, value, ttlMs) {
      open();
      const wrote = claimAll(ns, keys, JSON.stringify(value), expiry(ttlMs));
      if (ttlMs !== undefined) sweep();
      return wrote;
    },
    async delete(ns, key) {
      open();
      // One transaction: the live row and an expired one go in one commit (one fsync, not two).
      return removeDel(ns, key);
    },
    async entries<T>(ns: string) {
      open();
      return q.entries.all(ns, now()).map((r) => ({ key: r.key, value: parse<T>(r.value) }));
    },
    async push(list, id, value) {
      open();
      push(list, id, JSON.stringify(value));
    },
    async items<T>(list: string) {
      open();
      return q.items.all(list).map((r) => ({ id: r.id, value: parse<T>(r.value) }));
    },
    async removeItem(list, id) {
      open();
      return q.itemDel.run(list, id).changes > 0;
    },
    async lists() {
      open();
      return q.lists.all().map((r) => r.list);
    },
    async write(writes) {
      open();
      const done = batch(writes);
      if (writes.some((w) => (w.op === 'set' || w.op === 'claim') && w.ttlMs !== undefined)) sweep();
      return done;
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
