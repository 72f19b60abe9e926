/** The one attempt policy (src/delivery/pacing/attempt.ts): classify, back off with a cap, retry after retry-after, give up. */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { RateLimitedError, TurnbridgeError } from '../../../src/errors.js';
import { attempt, Attempts, backoffMs, classify } from '../../../src/delivery/pacing/attempt.js';
import { flush, useFakeClock } from './helpers.js';

const transient = () => new TurnbridgeError('TB_PLATFORM_ERROR', 'Slack chat.postMessage failed: HTTP 503');
const permanent = () => new TurnbridgeError('TB_PLATFORM_ERROR', 'Slack chat.postMessage failed: channel_not_found', { permanent: true });
const limited = (ms: number) => new RateLimitedError('429', ms);

describe('attempt policy', () => {
  it('classifies 429s, permanent platform errors and everything else', () => {
    assert.deepEqual(classify(limited(7000)), { kind: 'rate-limited', retryAfterMs: 7000 });
    assert.deepEqual(classify(permanent()), { kind: 'permanent' });
    assert.deepEqual(classify(transient()), { kind: 'transient' });
    assert.deepEqual(classify(new Error('socket hang up')), { kind: 'transient' });
    assert.deepEqual(classify('weird'), { kind: 'transient' });
  });

  it('backs off 250 ms doubling up to the cap', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffMs(n)), [250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
    assert.equal(backoffMs(3, { baseMs: 100, capMs: 300 }), 300);
  });

  it('counts consecutive failures; a success starts again; permanent gives up at once', () => {
    const a = new Attempts({ maxFailures: 3, max429: 2 });
    assert.deepEqual(a.next(transient()), { kind: 'back-off', ms: 250, failures: 1 });
    assert.deepEqual(a.next(limited(1000)), { kind: 'after-rate-limit', retryAfterMs: 1000, limited: 1 });
    assert.deepEqual(a.next(transient()), { kind: 'back-off', ms: 500, failures: 2 });
    assert.equal(a.next(transient()).kind, 'give-up');
    a.succeeded();
    assert.deepEqual(a.next(transient()), { kind: 'back-off', ms: 250, failures: 1 });
    assert.equal(a.next(limited(5)).kind, 'after-rate-limit');
    assert.deepEqual(a.next(limited(5)), { kind: 'give-up', why: 'rate-limits', failures: 1, limited: 2 }, 'the second 429 reaches max429');
    a.succeeded();
    assert.deepEqual(a.next(permanent()), { kind: 'give-up', why: 'permanent', failures: 1, limited: 0 });
  });

  it('attempt(): waits retry-after for a 429 and the back-off for a failure, on fake timers', async (t) => {
    useFakeClock(t);
    const errors = [limited(3000), transient(), transient()];
    const calls: number[] = [];
    let value: unknown;
    void attempt(async () => {
      calls.push(Date.now());
      const e = errors.shift();
      if (e) throw e;
      return 'ok';
    }).then((r) => (value = r));
    // [ms of fake time to pass, calls made by then, why]
    const steps: Array<[number, number, string]> = [
      [0, 1, 'the first call at once'], [2999, 1, 'not before retry-after'], [1, 2, 'after retry-after'],
      [250, 3, 'the first back-off is 250 ms'], [499, 3, 'the second back-off is 500 ms'], [1, 4, 'then the fourth call'],
    ];
    for (const [ms, n, why] of steps) {
      t.mock.timers.tick(ms);
      await flush();
      assert.equal(calls.length, n, why);
    }
    assert.deepEqual(value, { ok: true, value: 'ok' });
    assert.deepEqual(calls.map((c) => c - calls[0]!), [0, 3000, 3250, 3750]);
  });

  it('attempt(): a caller-owned 429 wait (the pool), a stop condition, and giving up never throw', async () => {
    const waited: number[] = [];
    let n = 0;
    const r = await attempt(async () => {
      if (++n < 3) throw limited(1234);
      throw permanent();
    }, { onRateLimited: (ms) => { waited.push(ms); } });
    assert.deepEqual(waited, [1234, 1234]);
    assert.equal(n, 3);
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.why, 'permanent');
    const stopped = await attempt(async () => { throw transient(); }, { stop: () => true });
    assert.equal(!stopped.ok && stopped.why, 'stopped');
    const slept: number[] = [];
    const failed = await attempt(async () => { throw transient(); }, { policy: { maxFailures: 3 }, sleep: async (ms) => { slept.push(ms); } });
    assert.equal(!failed.ok && failed.why, 'failures');
    assert.deepEqual(slept, [250, 500]);
  });
});
