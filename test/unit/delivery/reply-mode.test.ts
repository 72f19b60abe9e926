/**
 * A live reply's mode is one value (reply-mode.ts) changed only by named transitions: the legal
 * moves, and the mode a reply reports as it goes through them on a real Delivery.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDelivery } from '../../../src/delivery/index.js';
import { canMove } from '../../../src/delivery/reply-mode.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { advance, conv, finishOnClock, flush, useFakeClock } from './helpers.js';
import { streamingRig } from './streaming-rig.js';

describe('reply modes', () => {
  test('the move table: editing and finished are (nearly) final, streaming and parked move on', () => {
    assert.ok(canMove('streaming', 'editing'));
    assert.ok(canMove('streaming', 'parked'));
    assert.ok(canMove('parked', 'streaming'));
    assert.ok(canMove('parked', 'editing'));
    for (const from of ['editing', 'streaming', 'parked'] as const) assert.ok(canMove(from, 'finished'), `${from} -> finished`);
    assert.equal(canMove('editing', 'streaming'), false, 'post + edit is decided once');
    assert.equal(canMove('editing', 'parked'), false);
    assert.equal(canMove('parked', 'parked'), false);
    for (const to of ['editing', 'streaming', 'parked', 'finished'] as const) assert.equal(canMove('finished', to), false, `finished -> ${to}`);
  });

  test('without native streaming a reply edits from the start, then finishes', async (t) => {
    useFakeClock(t);
    const delivery = createDelivery(createRecordingSurface({ maxTextChars: 4000, minEditIntervalMs: 0 }));
    const reply = delivery.open(conv);
    assert.equal(reply.mode, 'editing');
    reply.append({ text: 'hi' });
    const done = reply.finish({ kind: 'success', reply: '' });
    assert.equal(reply.mode, 'finished');
    assert.equal(reply.finish({ kind: 'error', message: 'again' }), done, 'a second finish gets the first one');
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    await delivery.close();
  });

  test('streaming falls back to editing when start() answers null', async (t) => {
    useFakeClock(t);
    const rig = streamingRig();
    rig.start = 'null';
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv);
    assert.equal(reply.mode, 'streaming');
    reply.append({ text: 'some answer' });
    await advance(t, 200);
    assert.equal(reply.mode, 'editing', 'fallBackToEdits');
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.equal(reply.mode, 'finished');
    assert.equal(rig.surface.visibleText(reply.messages[0]!), 'some answer');
    await delivery.close();
  });

  test('continueBelow ends a stream: the reply goes on with edits below', async (t) => {
    useFakeClock(t);
    const rig = streamingRig();
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv, { stopActionId: 's1' });
    reply.append({ text: 'streamed part' });
    await advance(t, 200);
    assert.equal(reply.mode, 'streaming');
    reply.continueBelow();
    assert.equal(reply.mode, 'editing');
    reply.append({ text: 'after the prompt' });
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.equal(rig.text(rig.streams[0]!), 'streamed part');
    await delivery.close();
  });

  test("hand-over: a start waiting past the grace parks the reply; the start's turn resumes the stream", async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ startPerMinute: 2, lateStart: 'hand-over', minEditIntervalMs: 500 });
    const delivery = createDelivery(rig.surface);
    const first = delivery.open({ ...conv, thread: 'a' });
    const second = delivery.open({ ...conv, thread: 'b' });
    await flush();
    first.append({ text: 'first answer' });
    await advance(t, 200);
    second.append({ text: 'second ' });
    await advance(t, 1500);
    assert.equal(first.mode, 'streaming');
    assert.equal(second.mode, 'parked', 'park: the answer shows through edits meanwhile');
    // keep writing until the start's turn comes (one per 30 s)
    for (let i = 1; rig.streams.length < 2; i++) {
      assert.ok(i < 400, 'the waiting start got its turn');
      second.append({ text: `w${i} ` });
      await advance(t, 100);
    }
    assert.equal(second.mode, 'streaming', 'resumeStream');
    await finishOnClock(t, second, { kind: 'success', reply: '' });
    await finishOnClock(t, first, { kind: 'success', reply: '' });
    await delivery.close();
  });

  test("hand-over: when the edits already show everything at the start's turn, the reply stays editing", async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ startPerMinute: 2, lateStart: 'hand-over' });
    const delivery = createDelivery(rig.surface);
    const first = delivery.open({ ...conv, thread: 'a' });
    const second = delivery.open({ ...conv, thread: 'b' });
    await flush();
    first.append({ text: 'first' });
    await advance(t, 200);
    second.append({ text: 'all of it so far' });
    await advance(t, 1500);
    assert.equal(second.mode, 'parked');
    await advance(t, 35_000);
    assert.equal(second.mode, 'editing', 'no stream for this reply');
    await finishOnClock(t, second, { kind: 'success', reply: '' });
    await finishOnClock(t, first, { kind: 'success', reply: '' });
    await delivery.close();
  });
});
