/** The state contract against a real redis-server on loopback. */
import { randomUUID } from 'node:crypto';
import { after, before } from 'node:test';
import { Redis } from 'ioredis';
import { redisStateStore, startRedisServer, type RedisServer } from '../fakes/redis-server.js';
import { stateContract } from './state-contract.js';

let server: RedisServer;
let admin: Redis;
before(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
});
after(async () => {
  admin.disconnect();
  server.stop();
});

stateContract('redis', () => {
  const prefix = `t-${randomUUID()}:`;
  return {
    open: () => redisStateStore(server.url, prefix),
    async expire(ns, key) {
      // A timestamp in the past expires the key at once (PEXPIREAT), as its TTL running out would.
      await admin.pexpireat(`${prefix}kv:${ns}:${key}`, 1);
    },
  };
});
