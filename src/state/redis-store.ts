/**
 * The shared StateStore on Redis (REDIS_URL), for several replicas behind one app. The client is
 * node-redis (`@redis/client`, re-exported by @keyv/redis, which the project already uses).
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
import { createClient } from '@keyv/redis';
import type { BusKey } from '../bus-key.js';
import { sealStore, type RejectedRecord } from './sealed-store.js';
import type { StateStore, StateWrite } from './store.js';

export interface RedisStoreOptions {
  url: string;
  /** The bridge's key (TURNBRIDGE_BUS_KEY): records are written with its MAC and checked on read. */
  key: BusKey;
  /** A record failed the check and was ignored. */
  onRejected?: (r: RejectedRecord) => void;
  /** Key prefix (default "turnbridge:"). Tests use one per run. */
  prefix?: string;
  /** Called with client errors (connection lost, ...); the store keeps trying to reconnect. */
  onError?: (err: unknown) => void;
  /** Give up connecting after this long per attempt (default 3000 ms). */
  connectTimeoutMs?: number;
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

export function createRedisStore(opts: RedisStoreOptions): StateStore {
  const prefix = opts.prefix ?? 'turnbridge:';
  const client = createClient({
    url: opts.url,
    socket: { connectTimeout: opts.connectTimeoutMs ?? 3000, reconnectStrategy: (retries: number) => Math.min(2000, 50 * 2 ** retries) },
  });
  client.on('error', (err: unknown) => opts.onError?.(err));
  let connecting: Promise<unknown> | undefined;
  let closed = false;
  const ready = async () => {
    if (closed) throw new Error('the state store is closed');
    connecting ??= client.connect().catch((err: unknown) => {
      connecting = undefined;
      throw err;
    });
    await connecting;
  };
  const kv = (ns: string, key: string) => `${prefix}kv:${checkNs(ns)}:${key}`;
  const listKey = (name: string) => `${prefix}list:${name}`;
  const valuesKey = (name: string) => `${prefix}listv:${name}`;
  const parse = <T>(s: string | null | undefined): T | undefined => (s === null || s === undefined ? undefined : (JSON.parse(s) as T));

  const store: StateStore = {
    backend: 'redis',
    async get<T>(ns: string, key: string) {
      await ready();
      return parse<T>(await client.get(kv(ns, key)));
    },
    async set(ns, key, value, ttlMs) {
      await store.write([{ op: 'set', ns, key, value, ...(ttlMs !== undefined ? { ttlMs } : {}) }]);
    },
    async setIfNotExists(ns, key, value, ttlMs) {
      await ready();
      const json = JSON.stringify(value);
      const r = ttlMs !== undefined
        ? await client.set(kv(ns, key), json, { NX: true, PX: Math.max(1, Math.round(ttlMs)) })
        : await client.set(kv(ns, key), json, { NX: true });
      return r === 'OK';
    },
    async setIfNoneExist(ns, keys, value, ttlMs) {
      await ready();
      if (keys.length === 0) return true;
      const px = ttlMs !== undefined ? String(Math.max(1, Math.round(ttlMs))) : '';
      const r = await client.eval(SET_IF_NONE_EXIST, { keys: keys.map((k) => kv(ns, k)), arguments: [JSON.stringify(value), px] });
      return Number(r) === 1;
    },
    async delete(ns, key) {
      await ready();
      return (await client.del(kv(ns, key))) > 0;
    },
    async entries<T>(ns: string) {
      await ready();
      const head = `${prefix}kv:${checkNs(ns)}:`;
      const keys: string[] = [];
      for await (const batch of client.scanIterator({ MATCH: `${head}*`, COUNT: 500 })) keys.push(...(batch as unknown as string[]));
      keys.sort();
      if (keys.length === 0) return [];
      const values = await client.mGet(keys);
      const out: Array<{ key: string; value: T }> = [];
      keys.forEach((k, i) => {
        const v = parse<T>(values[i] as string | null);
        if (v !== undefined) out.push({ key: k.slice(head.length), value: v });
      });
      return out;
    },
    async push(list, id, value) {
      await store.write([{ op: 'push', list, id, value }]);
    },
    async items<T>(list: string) {
      await ready();
      const ids = await client.zRange(listKey(list), 0, -1);
      if (ids.length === 0) return [];
      const values = await client.hmGet(valuesKey(list), ids);
      const out: Array<{ id: string; value: T }> = [];
      ids.forEach((id, i) => {
        const v = parse<T>(values[i] as string | null);
        if (v !== undefined) out.push({ id, value: v });
      });
      return out;
    },
    async removeItem(list, id) {
      await ready();
      const [removed] = (await client.multi().zRem(listKey(list), id).hDel(valuesKey(list), id).exec()) as unknown as [number, number];
      return Number(removed) > 0;
    },
    async write(writes: readonly StateWrite[]) {
      await ready();
      if (writes.length === 0) return [];
      // set and push alone are this with one write. Push order comes from the seq
      // counter: one number per push is taken first, then everything goes in one MULTI.
      const pushes = writes.filter((w) => w.op === 'push').length;
      let seq = pushes > 0 ? (await client.incrBy(`${prefix}seq`, pushes)) - pushes : 0;
      const m = client.multi();
      // Where each write's replies start in EXEC's answer (a push queues three commands).
      const at: number[] = [];
      let n = 0;
      for (const w of writes) {
        at.push(n);
        n += w.op === 'push' ? 3 : w.op === 'removeItem' ? 2 : 1;
        if (w.op === 'set' || w.op === 'claim') {
          const json = JSON.stringify(w.value);
          const nx = w.op === 'claim' ? { NX: true } : {};
          if (w.ttlMs !== undefined) m.set(kv(w.ns, w.key), json, { ...nx, PX: Math.max(1, Math.round(w.ttlMs)) });
          else m.set(kv(w.ns, w.key), json, nx);
        } else if (w.op === 'delete') m.del(kv(w.ns, w.key));
        else if (w.op === 'push') {
          // NX: an id already queued keeps its place; its value is replaced.
          m.zAdd(listKey(w.list), { score: ++seq, value: w.id }, { NX: true }).hSet(valuesKey(w.list), w.id, JSON.stringify(w.value)).sAdd(`${prefix}lists`, w.list);
        } else m.zRem(listKey(w.list), w.id).hDel(valuesKey(w.list), w.id);
      }
      const replies = (await m.exec()) as unknown[];
      // SET NX answers null when the key was there: the claim was taken.
      return writes.map((w, i) => w.op !== 'claim' || replies[at[i]!] === 'OK');
    },
    async lists() {
      await ready();
      const names = (await client.sMembers(`${prefix}lists`)).sort();
      const out: string[] = [];
      for (const name of names) {
        if ((await client.zCard(listKey(name))) > 0) out.push(name);
        else await client.sRem(`${prefix}lists`, name);
      }
      return out;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (!client.isOpen) return;
      if (!client.isReady) {
        client.destroy();
        return;
      }
      try {
        await client.close();
      } catch {
        client.destroy();
      }
    },
  };
  return sealStore(store, { key: opts.key, ...(opts.onRejected ? { onRejected: opts.onRejected } : {}) });
}
