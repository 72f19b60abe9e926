import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLimiterPool } from '../../../src/delivery/pacing/limiter-pool.js';
import { createBottleneckLimiter, type RateLimiter } from '../../../src/delivery/pacing/limiter-pool.js';
import { silentLogger } from '../../../src/log.js';
import { createDelivery } from '../../../src/delivery/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { advance, conv, flush, settleOnClock, useFakeClock } from './helpers.js';

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

  test('a final run overtakes the live runs waiting in the same bucket; a skipped run spends no budget', async (t) => {
    useFakeClock(t);
    const pool = createLimiterPool({ now: Date.now, logger: silentLogger });
    const budget = { key: 'slack:T1:chat.update', perMinute: 60 };
    const start = Date.now();
    const order: Array<[string, number]> = [];
    const job = (name: string) => async () => void order.push([name, Date.now() - start]);
    let skip = false;
    const runs = [1, 2, 3, 4, 5].map((i) => pool.run([budget], job(`live${i}`), i === 3 ? { skipIf: () => skip } : undefined));
    await flush();
    skip = true;
    runs.push(pool.run([budget], job('final'), { priority: 'final' }));
    await advance(t, 6000);
    await Promise.all(runs);
    assert.deepEqual(order.map(([n]) => n), ['live1', 'final', 'live2', 'live4', 'live5']);
    const at = Object.fromEntries(order);
    assert.ok(at.final! >= 1000 - 50 && at.final! < 2000, `final at ${at.final}`);
    assert.ok(at.live5! < 5000, `the skipped run took no slot: live5 at ${at.live5}`);
    await pool.stop();
  });

  test('a finishing reply overtakes the live edits of other replies sharing the workspace edit budget', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ budgets: { edit: (c) => [{ key: `ws:${c.space}:chat.update`, perMinute: 60 }] } });
    const delivery = createDelivery(surface);
    const [a, ...others] = [1, 2, 3, 4, 5, 6].map((i) => delivery.open({ ...conv, thread: `t${i}` }));
    await flush();
    for (let i = 0; i < 40; i++) {
      a!.append({ text: `a${i} ` });
      for (const o of others) o.append({ text: `o${i} ` });
      await advance(t, 100);
    }
    // every reply now has one live edit waiting for the shared budget (one edit per second)
    const finishAt = Date.now();
    const done = a!.finish({ kind: 'success', reply: 'A done' });
    const [stats] = await settleOnClock(t, [done]);
    const aRef = a!.messages[0]!;
    const final = surface.callsOf('edit').find((c) => c.ref?.id === aRef.id && c.content?.tone === 'success')!;
    const othersBefore = surface.callsOf('edit').filter((c) => c.ref?.id !== aRef.id && c.at >= finishAt && c.at < final.at).length;
    assert.ok(othersBefore <= 1, `${othersBefore} live edits of other replies went before the final edit`);
    assert.ok(final.at - finishAt <= 2000, `the final edit waited ${final.at - finishAt} ms`);
    assert.equal(surface.visibleText(aRef), `${Array.from({ length: 40 }, (_, i) => `a${i} `).join('')}A done`);
    assert.ok(stats!.edits >= 1);
    await settleOnClock(t, others.map((o) => o.finish({ kind: 'success', reply: '' })));
    await delivery.close();
  });
});
