/** The state contract against a real redis-server on loopback. */
import { randomUUID } from 'node:crypto';
import { after, before } from 'node:test';
import { Redis } from 'ioredis';
import type { RejectedRecord, StateStore } from '../../src/state/index.js';
import { redisStateStore, startRedisServer, type RedisServer } from '../fakes/redis-server.js';
import { stateContract } from './state-contract.js';

let server: RedisServer;
let admin: Redis;
/** Every store opened, closed at the end: a case that fails before its own close() fails instead of hanging on a live connection. */
const opened: StateStore[] = [];
before(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
});
after(async () => {
  await Promise.allSettled(opened.map((s) => s.close()));
  admin.disconnect();
  server.stop();
});

stateContract('redis', () => {
  const prefix = `t-${randomUUID()}:`;
  const rejected: RejectedRecord[] = [];
  return {
    open: () => {
      const store = redisStateStore(server.url, prefix, (r) => rejected.push(r));
      opened.push(store);
      return store;
    },
    async expire(ns, key) {
      // A timestamp in the past expires the key at once (PEXPIREAT), as its TTL running out would.
      await admin.pexpireat(`${prefix}kv:${ns}:${key}`, 1);
    },
    sealed: {
      readRaw: (ns, key) => admin.get(`${prefix}kv:${ns}:${key}`),
      async writeRaw(ns, key, raw) {
        await admin.set(`${prefix}kv:${ns}:${key}`, raw);
      },
      rejected,
    },
  };
});
