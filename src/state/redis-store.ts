/**
 * The shared StateStore on Redis (REDIS_URL), for several replicas behind one app, on the
 * process's command connection (redis/: ioredis, shared with the other features).
 *
 * Layout under the prefix (default "turnbridge:"):
 *   kv:<ns>:<key>      JSON string, PX for TTL; setIfNotExists = SET NX PX (atomic across replicas)
 *   seq                INCR counter that orders list pushes across replicas
 *   list:<name>        sorted set: member = item id, score = seq at first push
 *   listv:<name>       hash: item id -> JSON
 *   lists              set of list names that may hold items
 *
 * Every value is sealed under the bridge's key (sealed-store.ts): whoever can reach Redis can
 * write there, and a forged grant, rule or ledger record would be a permission.
 */
import type { BusKey } from '../bus-key.js';
import type { RedisConnections } from '../redis/index.js';
import { sealStore, type RejectedRecord } from './sealed-store.js';
import type { StateStore, StateWrite } from './store.js';

export interface RedisStoreOptions {
  /** The process's Redis connections (redis/connectRedis); the store does not close them. */
  redis: RedisConnections;
  /** The bridge's key (TURNBRIDGE_BUS_KEY): records are written with its MAC and checked on read. */
  key: BusKey;
  /** A record failed the check and was ignored. */
  onRejected?: (r: RejectedRecord) => void;
  /** Key prefix (default "turnbridge:"). Tests use one per run. */
  prefix?: string;
}

function checkNs(ns: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(ns)) throw new Error(`state namespace must be a plain word, got ${JSON.stringify(ns)}`);
  return ns;
}

/** setIfNoneExist: MSETNX has no TTL, so the check and the writes run as one script (atomic). */
const SET_IF_NONE_EXIST = `
for _, k in ipairs(KEYS) do if redis.call('EXISTS', k) == 1 then return 0 end end
for _, k in ipairs(KEYS) do
  if ARGV[2] ~= '' then redis.call('SET', k, ARGV[1], 'PX', ARGV[2]) else redis.call('SET', k, ARGV[1]) end
end
return 1`;

/** EXEC's answer: one [error, reply] per queued command; the first error rejects the batch. */
function replies(exec: Array<[Error | null, unknown]> | null): unknown[] {
  if (!exec) throw new Error('the Redis transaction was discarded');
  return exec.map(([err, reply]) => {
    if (err) throw err;
    return reply;
  });
}

export function createRedisStore(opts: RedisStoreOptions): StateStore {
  const prefix = opts.prefix ?? 'turnbridge:';
  const client = opts.redis.commands;
  let closed = false;
  const ready = () => {
    if (closed) throw new Error('the state store is closed');
  };
  const kv = (ns: string, key: string) => `${prefix}kv:${checkNs(ns)}:${key}`;
  const listKey = (name: string) => `${prefix}list:${name}`;
  const valuesKey = (name: string) => `${prefix}listv:${name}`;
  const px = (ttlMs: number) => Math.max(1, Math.round(ttlMs));
  const parse = <T>(s: string | null | undefined): T | undefined => (s === null || s === undefined ? undefined : (JSON.parse(s) as T));

  const store: StateStore = {
    backend: 'redis',
    async get<T>(ns: string, key: string) {
      ready();
      return parse<T>(await client.get(kv(ns, key)));
    },
    async set(ns, key, value, ttlMs) {
      await store.write([{ op: 'set', ns, key, value, ...(ttlMs !== undefined ? { ttlMs } : {}) }]);
    },
    async setIfNotExists(ns, key, value, ttlMs) {
      ready();
      const json = JSON.stringify(value);
      const r = ttlMs !== undefined ? await client.set(kv(ns, key), json, 'PX', px(ttlMs), 'NX') : await client.set(kv(ns, key), json, 'NX');
      return r === 'OK';
    },
    async setIfNoneExist(ns, keys, value, ttlMs) {
      ready();
      if (keys.length === 0) return true;
      const ttl = ttlMs !== undefined ? String(px(ttlMs)) : '';
      const r = await client.eval(SET_IF_NONE_EXIST, keys.length, ...keys.map((k) => kv(ns, k)), JSON.stringify(value), ttl);
      return Number(r) === 1;
    },
    async delete(ns, key) {
      ready();
      return (await client.del(kv(ns, key))) > 0;
    },
    async entries<T>(ns: string) {
      ready();
      const head = `${prefix}kv:${checkNs(ns)}:`;
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await client.scan(cursor, 'MATCH', `${head}*`, 'COUNT', 500);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== '0');
      const unique = [...new Set(keys)].sort();
      if (unique.length === 0) return [];
      const values = await client.mget(...unique);
      const out: Array<{ key: string; value: T }> = [];
      unique.forEach((k, i) => {
        const v = parse<T>(values[i]);
        if (v !== undefined) out.push({ key: k.slice(head.length), value: v });
      });
      return out;
    },
    async push(list, id, value) {
      await store.write([{ op: 'push', list, id, value }]);
    },
    async items<T>(list: string) {
      ready();
      const ids = await client.zrange(listKey(list), 0, -1);
      if (ids.length === 0) return [];
      const values = await client.hmget(valuesKey(list), ...ids);
      const out: Array<{ id: string; value: T }> = [];
      ids.forEach((id, i) => {
        const v = parse<T>(values[i]);
        if (v !== undefined) out.push({ id, value: v });
      });
      return out;
    },
    async removeItem(list, id) {
      ready();
      const [removed] = replies(await client.multi().zrem(listKey(list), id).hdel(valuesKey(list), id).exec());
      return Number(removed) > 0;
    },
    async write(writes: readonly StateWrite[]) {
      ready();
      if (writes.length === 0) return [];
      // Every value is serialized before anything is sent: one that cannot be leaves the batch undone.
      const json = writes.map((w) => (w.op === 'set' || w.op === 'claim' || w.op === 'push' ? JSON.stringify(w.value) : ''));
      // Push order comes from the seq counter: one number per push is taken first, then
      // everything goes in one MULTI.
      const pushes = writes.filter((w) => w.op === 'push').length;
      let seq = pushes > 0 ? (await client.incrby(`${prefix}seq`, pushes)) - pushes : 0;
      const m = client.multi();
      // Where each write's replies start in EXEC's answer (a push queues three commands).
      const at: number[] = [];
      let n = 0;
      writes.forEach((w, i) => {
        at.push(n);
        n += w.op === 'push' ? 3 : w.op === 'removeItem' ? 2 : 1;
        if (w.op === 'set' || w.op === 'claim') {
          const args: Array<string | number> = w.ttlMs !== undefined ? ['PX', px(w.ttlMs)] : [];
          if (w.op === 'claim') args.push('NX');
          m.call('SET', kv(w.ns, w.key), json[i]!, ...args);
        } else if (w.op === 'delete') m.del(kv(w.ns, w.key));
        else if (w.op === 'push') {
          // NX: an id already queued keeps its place; its value is replaced.
          m.zadd(listKey(w.list), 'NX', ++seq, w.id).hset(valuesKey(w.list), w.id, json[i]!).sadd(`${prefix}lists`, w.list);
        } else m.zrem(listKey(w.list), w.id).hdel(valuesKey(w.list), w.id);
      });
      const answered = replies(await m.exec());
      // SET NX answers null when the key was there: the claim was taken.
      return writes.map((w, i) => w.op !== 'claim' || answered[at[i]!] === 'OK');
    },
    async lists() {
      ready();
      const names = (await client.smembers(`${prefix}lists`)).sort();
      const out: string[] = [];
      for (const name of names) {
        if ((await client.zcard(listKey(name))) > 0) out.push(name);
        else await client.srem(`${prefix}lists`, name);
      }
      return out;
    },
    async close() {
      // The connections are the process's (redis/), closed by their owner.
      closed = true;
    },
  };
  return sealStore(store, { key: opts.key, ...(opts.onRejected ? { onRejected: opts.onRejected } : {}) });
}
