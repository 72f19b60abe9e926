/**
 * StreamLane's state is one LaneState value (live | parked | finishing | fallen): the lane goes
 * through it against the recording streaming surface, with real limiters on a fake clock.
 */
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createLimiterPool } from '../../../src/delivery/pacing/limiter-pool.js';
import { StreamLane, type StreamLaneDeps } from '../../../src/delivery/stream/stream-lane.js';
import { beginFinish, closed, opened, type LaneState } from '../../../src/delivery/stream/stream-lane-state.js';
import type { NativeStream } from '../../../src/delivery/index.js';
import type { DeliveryStats } from '../../../src/delivery/index.js';
import { silentLogger } from '../../../src/log.js';
import { advance, conv, useFakeClock } from './helpers.js';
import { streamingRig, type StreamingRig } from './streaming-rig.js';

/** A lane maker on one fake clock and one limiter pool (so budgets are shared between lanes). */
function lanes(t: TestContext, rig: StreamingRig) {
  useFakeClock(t);
  const pool = createLimiterPool({ now: Date.now, logger: silentLogger });
  t.after(() => pool.stop());
  return (extra: Partial<StreamLaneDeps> = {}) => {
    const stats: DeliveryStats = { posts: 0, edits: 0, rateLimitWaits: 0, parts: 0 };
    const fallbacks: Array<[string, boolean]> = [];
    const l = new StreamLane({
      streaming: rig.surface.streaming!,
      pool,
      conversation: conv,
      now: Date.now,
      logger: silentLogger,
      stats,
      minIntervalMs: 0,
      onFallback: (leftover, streamed) => fallbacks.push([leftover, streamed]),
      ...extra,
    });
    return { l, fallbacks };
  };
}

describe('StreamLane states', () => {
  test('the pure moves: opened, closed and beginFinish keep the stream where it belongs; fallen is final', () => {
    const stream = { ref: { id: 's1', conversation: conv } } as unknown as NativeStream;
    const fallen: LaneState = { kind: 'fallen', leftover: 'x' };
    assert.deepEqual(opened({ kind: 'parked' }, stream), { kind: 'live', stream }, 'a parked start that landed');
    assert.deepEqual(opened({ kind: 'finishing' }, stream), { kind: 'finishing', stream }, 'landed after finish()');
    assert.equal(opened(fallen, stream), fallen);
    assert.deepEqual(closed({ kind: 'live', stream }), { kind: 'live' });
    assert.deepEqual(closed({ kind: 'finishing', stream }), { kind: 'finishing' });
    assert.deepEqual(beginFinish({ kind: 'live', stream }), { kind: 'finishing', stream });
    assert.deepEqual(beginFinish({ kind: 'parked' }), { kind: 'finishing' });
    assert.equal(beginFinish(fallen), fallen);
    const finishing: LaneState = { kind: 'finishing' };
    assert.equal(beginFinish(finishing), finishing, 'a second finish changes nothing');
  });


  test('live until finish(); a finished lane takes no more text', async (t) => {
    const rig = streamingRig();
    const { l, fallbacks } = lanes(t, rig)();
    assert.equal(l.kind, 'live');
    l.push('hello ');
    await advance(t, 100);
    assert.equal(l.kind, 'live');
    const end = l.finish('world', 'success');
    assert.equal(l.kind, 'finishing');
    await advance(t, 100);
    assert.deepEqual(await end, { leftover: '', streamed: true });
    l.push('late text');
    await advance(t, 100);
    assert.equal(rig.text(rig.streams[0]!), 'hello world');
    assert.deepEqual(fallbacks, []);
  });

  test('fallen when start() answers null: the text goes back to the reply once, and finish() adds the tail', async (t) => {
    const rig = streamingRig();
    rig.start = 'null';
    const { l, fallbacks } = lanes(t, rig)();
    l.push('some text');
    await advance(t, 100);
    assert.equal(l.kind, 'fallen');
    assert.deepEqual(fallbacks, [['some text', false]]);
    l.push(' more');
    await advance(t, 100);
    const end = l.finish(' tail', 'success');
    await advance(t, 100);
    assert.deepEqual(await end, { leftover: 'some text tail', streamed: false }, 'pushes after the fall are the reply\'s own');
    assert.equal(l.kind, 'fallen', 'fallen is final');
    assert.equal(fallbacks.length, 1);
  });

  test('a stream that breaks while finishing falls without calling back (finish() returns the leftover)', async (t) => {
    const rig = streamingRig();
    const { l, fallbacks } = lanes(t, rig)({ maxAttempts: 1 });
    l.push('start ');
    await advance(t, 100);
    rig.streams[0]!.ended = true;
    const end = l.finish('tail', 'success');
    await advance(t, 100);
    assert.deepEqual(await end, { leftover: 'tail', streamed: true });
    assert.equal(l.kind, 'fallen');
    assert.deepEqual(fallbacks, [], 'no fallback call while finishing');
  });

  test('hand-over: a first start past its grace parks the lane until its turn comes', async (t) => {
    const rig = streamingRig({ startPerMinute: 1 });
    const parkedWith: string[] = [];
    let handOver = '';
    const make = lanes(t, rig);
    const first = make();
    first.l.push('takes the only start');
    await advance(t, 100);
    const { l } = make({
      startGraceMs: 500,
      onPark: (text) => parkedWith.push(text),
      handOver: () => handOver,
    });
    l.push('early text');
    await advance(t, 1000);
    assert.equal(l.kind, 'parked');
    assert.deepEqual(parkedWith, ['early text']);
    handOver = 'the rest';
    await advance(t, 61_000);
    assert.equal(l.kind, 'live', 'the start came: the stream carries the rest');
    assert.equal(rig.startedWith[1], 'the rest');
    await Promise.all([advance(t, 200), l.finish('', undefined), first.l.finish('', undefined)]);
  });
});
