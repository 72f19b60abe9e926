/** The state contract against a real redis-server on loopback. */
import { randomUUID } from 'node:crypto';
import { after, before } from 'node:test';
import { createClient } from '@keyv/redis';
import { createRedisStore } from '../../src/state/index.js';
import { startRedisServer, type RedisServer } from '../fakes/redis-server.js';
import { stateContract } from './state-contract.js';
import { testBusKey } from '../fixtures/bus-key.js';

let server: RedisServer;
let admin: ReturnType<typeof createClient>;
before(async () => {
  server = await startRedisServer();
  admin = createClient({ url: server.url });
  await admin.connect();
});
after(async () => {
  await admin.close();
  server.stop();
});

stateContract('redis', () => {
  const prefix = `t-${randomUUID()}:`;
  return {
    open: () => createRedisStore({ url: server.url, prefix, key: testBusKey() }),
    async expire(ns, key) {
      // A timestamp in the past expires the key at once (PEXPIREAT), as its TTL running out would.
      await admin.pExpireAt(`${prefix}kv:${ns}:${key}`, 1);
    },
  };
});
