/**
 * Budgets shared through Redis: two replicas' limiters (separate connections) spend ONE budget,
 * and a Redis that goes away leaves each replica pacing alone instead of failing its replies.
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createLimiterPool } from '../../../src/delivery/pacing/limiter-pool.js';
import { createSharedLimiters, type SharedLimiters } from '../../../src/delivery/pacing/shared-limiter.js';
import type { RateBudget } from '../../../src/delivery/surface.js';
import { silentLogger } from '../../../src/log.js';
import { startRedisServer, type RedisServer, closeConnections, connectionsTo } from '../../fakes/redis-server.js';
import { waitFor } from '../../unit/bridge/helpers.js';

let server: RedisServer;
const opened: SharedLimiters[] = [];

before(async () => {
  server = await startRedisServer();
});

after(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await closeConnections();
  server.stop();
});

async function replica(prefix: string, url = server.url): Promise<SharedLimiters> {
  const s = createSharedLimiters({ redis: connectionsTo(url), logger: silentLogger, prefix });
  opened.push(s);
  return s;
}

describe('shared platform budgets (bottleneck clustered on a real redis-server)', () => {
  it('a burst budget is one reservoir for every replica', async () => {
    const a = await replica('t1');
    const b = await replica('t1');
    assert.equal(await a.ready(), true);
    assert.equal(await b.ready(), true);
    assert.equal(a.state, 'shared');
    // 5 at once, then one more per minute: replica A spends all five.
    const budget: RateBudget = { key: 'slack:T1:chat.postMessage', perMinute: 1, burst: 5 };
    const la = a.factory(budget);
    const lb = b.factory(budget);
    for (let i = 0; i < 5; i++) await la.schedule(async () => i);
    // Replica B's first job now waits a minute for a token: it has not run when A's next
    // job (also waiting) is compared. Read the shared reservoir straight from Redis.
    let ranB = false;
    const waitingB = lb.schedule(async () => {
      ranB = true;
    }).catch((err: Error) => err.message);
    const redis = new Redis(server.url);
    const keys = await redis.keys('b_t1:slack:T1:chat.postMessage*settings');
    assert.equal(keys.length, 1, 'one settings key for both replicas');
    assert.equal(await redis.hget(keys[0]!, 'reservoir'), '0', 'A spent the shared reservoir');
    assert.equal(ranB, false, 'B waits for the budget A spent');
    redis.disconnect();
    await la.stop();
    await lb.stop();
    assert.match(String(await waitingB), /stopped/, 'a job dropped by stop() never ran');
  });

  it('two replicas pacing one per-interval budget together take as long as one doing all the work', async () => {
    const a = await replica('t2');
    const b = await replica('t2');
    await a.ready();
    await b.ready();
    const budget: RateBudget = { key: 'slack:T1:chat.update', perMinute: 1200, burst: 1 }; // one start per 50 ms
    const poolA = createLimiterPool({ factory: a.factory, now: Date.now, logger: silentLogger });
    const poolB = createLimiterPool({ factory: b.factory, now: Date.now, logger: silentLogger });
    const started: number[] = [];
    const t0 = Date.now();
    const jobs = 20;
    await Promise.all(Array.from({ length: jobs }, (_, i) => (i % 2 ? poolA : poolB).run([budget], async () => {
      started.push(Date.now());
    })));
    const span = Math.max(...started) - t0;
    // Alone, each replica would finish its 10 in ~450 ms; sharing, the 20 need >= 19 x 50 ms.
    // Only a lower bound: a loaded machine makes it longer, never shorter.
    assert.ok(span >= 0.9 * (jobs - 1) * 50, `20 starts spread over ${span} ms`);
    await poolA.stop();
    await poolB.stop();
  });

  it('keeps pacing locally while Redis is down, and shares again when it is back', async () => {
    const own = await startRedisServer();
    const a = await replica('t3', own.url);
    assert.equal(await a.ready(), true);
    const budget: RateBudget = { key: 'discord:C1:post', perMinute: 6000, burst: 1 };
    const l = a.factory(budget);
    assert.equal(await l.schedule(async () => 'shared'), 'shared');
    own.stop();
    // The reply in flight must not be lost: it runs, paced by this replica alone.
    await waitFor(() => a.state === 'degraded', 'the replica notices Redis is gone');
    assert.equal(a.state, 'degraded');
    assert.equal(await l.schedule(async () => 'local'), 'local');
    const again = await startRedisServer(own.port);
    await waitFor(() => a.state === 'shared', 'the replica reconnects to Redis', 20_000);
    assert.equal(await l.schedule(async () => 'shared again'), 'shared again');
    await l.stop();
    again.stop();
  });

  it("an operation's own error reaches the caller; it is not mistaken for Redis failing", async () => {
    const a = await replica('t4');
    await a.ready();
    const l = a.factory({ key: 'k', perMinute: 6000 });
    await assert.rejects(l.schedule(async () => {
      throw new Error('chat.update failed: ratelimited');
    }), /ratelimited/);
    assert.equal(a.state, 'shared');
    await l.stop();
  });

  it('a budget whose keys expired in Redis is registered again (Redis 7 SETTINGS_KEY_NOT_FOUND)', async () => {
    const a = await replica('t5');
    await a.ready();
    const l = a.factory({ key: 'expiring', perMinute: 6000 });
    assert.equal(await l.schedule(async () => 1), 1);
    const redis = new Redis(server.url);
    for (const k of await redis.keys('b_t5:expiring*')) await redis.del(k);
    redis.disconnect();
    assert.equal(await l.schedule(async () => 2), 2);
    assert.equal(a.state, 'shared');
    await l.stop();
  });
});
