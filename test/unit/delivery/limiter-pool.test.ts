import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLimiterPool } from '../../../src/delivery/limiter-pool.js';
import { createBottleneckLimiter, type RateLimiter } from '../../../src/delivery/bottleneck-limiter.js';
import { silentLogger } from '../../../src/log.js';
import { advance, useFakeClock } from './helpers.js';

describe('limiter pool', () => {
  test('one limiter per key; budgets without a rate are not limited', async () => {
    const made: string[] = [];
    const pool = createLimiterPool({
      now: Date.now,
      logger: silentLogger,
      factory: (b) => {
        made.push(b.key);
        const l: RateLimiter = { schedule: (fn) => fn(), stop: async () => undefined };
        return l;
      },
    });
    const a = { key: 'a', perMinute: 60 };
    await pool.run([a, { key: 'b', perMinute: 10 }], async () => 1);
    await pool.run([a, { key: 'free', perMinute: 0 }], async () => 2);
    assert.equal(await pool.run([], async () => 3), 3);
    assert.deepEqual(made, ['a', 'b']);
    assert.equal(pool.size, 2);
  });

  test('bottleneck spacing: burst then one per interval', async (t) => {
    useFakeClock(t);
    const limiter = createBottleneckLimiter({ key: 'k', perMinute: 120, burst: 3 });
    const start = Date.now();
    const times: number[] = [];
    const jobs = Array.from({ length: 6 }, () => limiter.schedule(async () => times.push(Date.now() - start)));
    await advance(t, 3000);
    await Promise.all(jobs);
    // The burst goes out at once (mock-timer hops aside), the rest one per 500 ms.
    assert.ok(times.slice(0, 3).every((x) => x < 250), `burst ${times}`);
    for (let i = 4; i < 6; i++) assert.ok(times[i]! - times[i - 1]! >= 500 - 100, `paced ${times}`);
    await limiter.stop();
  });

  test('a 429 blocks the bucket for retry-after, slows it, and it recovers later', async (t) => {
    useFakeClock(t);
    const pool = createLimiterPool({ now: Date.now, logger: silentLogger, slowdownMs: 10_000 });
    const budget = { key: 'edit', perMinute: 600 };
    const settle = async (p: Promise<unknown>) => {
      await advance(t, 200);
      await p;
    };
    await settle(pool.run([budget], async () => undefined));
    pool.penalize([budget], 2000);
    assert.equal(pool.slowdownOf('edit'), 2);
    const start = Date.now();
    let ranAt = -1;
    void pool.run([budget], async () => (ranAt = Date.now() - start));
    await advance(t, 1500);
    assert.equal(ranAt, -1, 'ran while blocked');
    await advance(t, 1000);
    assert.ok(ranAt >= 2000, `ran at ${ranAt}`);
    pool.penalize([budget], 0);
    pool.penalize([budget], 0);
    assert.equal(pool.slowdownOf('edit'), 8);
    pool.penalize([budget], 0);
    assert.equal(pool.slowdownOf('edit'), 8, 'capped');
    await advance(t, 10_100);
    await settle(pool.run([budget], async () => undefined));
    assert.equal(pool.slowdownOf('edit'), 4, 'halved after a quiet period');
    await advance(t, 25_000);
    await settle(pool.run([budget], async () => undefined));
    assert.equal(pool.slowdownOf('edit'), 1);
    await pool.stop();
  });

  test('while slowed, a bucket (token bucket too) keeps running, spaced by interval x factor', async (t) => {
    useFakeClock(t);
    const pool = createLimiterPool({ now: Date.now, logger: silentLogger, slowdownMs: 60_000 });
    const budget = { key: 'chan', perMinute: 60, burst: 5 };
    pool.penalize([budget], 1000);
    const start = Date.now();
    const times: number[] = [];
    const jobs = Array.from({ length: 4 }, () => pool.run([budget], async () => times.push(Date.now() - start)));
    await advance(t, 10_000);
    await Promise.all(jobs);
    assert.equal(times.length, 4);
    assert.ok(times[0]! >= 1000, `first at ${times[0]}`);
    for (let i = 1; i < 4; i++) assert.ok(times[i]! - times[i - 1]! >= 2000 - 50, `spacing ${times}`);
    await pool.stop();
  });

  test('idle buckets are dropped, busy and recent ones kept', async () => {
    let now = 0;
    const stopped: string[] = [];
    const pool = createLimiterPool({
      now: () => now,
      logger: silentLogger,
      idleMs: 1000,
      factory: (b) => ({ schedule: (fn) => fn(), stop: async () => void stopped.push(b.key) }),
    });
    await pool.run([{ key: 'old', perMinute: 60 }], async () => undefined);
    now = 5000;
    for (let i = 0; i < 100; i++) await pool.run([{ key: 'hot', perMinute: 60 }], async () => undefined);
    assert.deepEqual(stopped, ['old']);
    assert.equal(pool.size, 1);
  });
});
