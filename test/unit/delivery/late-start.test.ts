/**
 * Native streaming when the first start has to wait for its (Tier 2) budget: the first text must
 * not wait with it. lateStart 'edit' (Slack auto): the reply goes on with post + edit.
 * lateStart 'hand-over' (Slack native): the answer shows on the control message meanwhile and the
 * stream carries only the rest once it starts; the text is never shown twice.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDelivery } from '../../../src/delivery/index.js';
import { advance, conv, finishOnClock, flush, useFakeClock } from './helpers.js';
import { streamingRig } from './streaming-rig.js';

const first = { ...conv, thread: 'a' };
const second = { ...conv, thread: 'b' };

describe('LiveReply: a stream start that waits for budget', () => {
  test("lateStart 'edit': the waiting reply shows its text through edits within the grace and never streams", async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ startPerMinute: 2, lateStart: 'edit' });
    const delivery = createDelivery(rig.surface);
    const a = delivery.open(first, { stopActionId: 'sa' });
    const b = delivery.open(second, { stopActionId: 'sb' });
    await flush();
    a.append({ text: 'first answer' });
    await advance(t, 200);
    b.append({ text: 'second ' });
    await advance(t, 1500);
    assert.deepEqual(rig.calls, ['start'], 'only the first reply got a start (one per 30 s)');
    const [bControl] = rig.surface.messagesIn(second);
    assert.equal(rig.surface.visibleText(bControl!.ref), 'second ', 'text visible after the grace, not after 30 s');
    assert.equal(rig.surface.contentOf(bControl!.ref).stopActionId, 'sb', 'status and Stop stay on it');
    b.append({ text: 'answer' });
    await advance(t, 40_000);
    assert.deepEqual(rig.calls, ['start'], 'the reply stays on post + edit once decided');
    assert.equal(rig.surface.visibleText(bControl!.ref), 'second answer');
    const stats = await finishOnClock(t, b, { kind: 'success', reply: ' done' });
    assert.deepEqual(rig.surface.contentOf(bControl!.ref), { text: 'second answer done', tone: 'success' });
    assert.deepEqual(b.messages, [bControl!.ref]);
    assert.ok(stats.firstTextLatencyMs! <= 1500, `first text after ${stats.firstTextLatencyMs} ms`);
    await finishOnClock(t, a, { kind: 'success', reply: '' });
    assert.equal(rig.text(rig.streams[0]!), 'first answer');
    await delivery.close();
  });

  test("lateStart 'hand-over': first text through edits, then the stream carries only the rest", async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ startPerMinute: 2, lateStart: 'hand-over', minEditIntervalMs: 500 });
    const delivery = createDelivery(rig.surface);
    const a = delivery.open(first);
    const b = delivery.open(second, { stopActionId: 'sb' });
    await flush();
    a.append({ text: 'first answer' });
    await advance(t, 200);
    let expected = '';
    for (let i = 1; i <= 20; i++) {
      b.append({ text: `w${i} ` });
      expected += `w${i} `;
      await advance(t, 100);
    }
    const [bControl] = rig.surface.messagesIn(second);
    const early = rig.surface.visibleText(bControl!.ref);
    assert.equal(b.mode, 'parked', 'park: the answer shows through edits while the start waits');
    assert.ok(early.startsWith('w1 w2 '), `text shows through edits while the start waits: ${JSON.stringify(early)}`);
    assert.deepEqual(rig.calls, ['start']);
    // keep writing until the start's turn comes (one per 30 s)
    for (let i = 21; rig.streams.length < 2; i++) {
      assert.ok(i < 400, 'the waiting start got its turn');
      b.append({ text: `w${i} ` });
      expected += `w${i} `;
      await advance(t, 100);
    }
    const handed = rig.surface.visibleText(bControl!.ref);
    assert.equal(b.mode, 'streaming', 'resumeStream');
    assert.ok(handed.length > early.length, 'the control message grew while waiting');
    assert.equal(rig.startedWith[1], expected.slice(handed.length), 'the stream starts with exactly what the control message does not show');
    for (let i = 1; i <= 10; i++) {
      b.append({ text: `x${i} ` });
      expected += `x${i} `;
      await advance(t, 100);
    }
    assert.equal(rig.surface.visibleText(bControl!.ref), handed, 'the control message keeps its part; nothing shown twice');
    assert.equal(rig.surface.contentOf(bControl!.ref).stopActionId, 'sb', 'Stop stays on the control message while streaming');
    await finishOnClock(t, b, { kind: 'success', reply: 'end.' });
    const stream = rig.streams[1]!;
    assert.deepEqual(rig.surface.contentOf(bControl!.ref), { text: handed }, 'the first part stays, frozen (no status, no Stop)');
    assert.equal(handed + rig.text(stream), `${expected}end.`, 'exact final text over the two messages');
    assert.equal(stream.stop?.tone, 'success');
    assert.deepEqual(b.messages, [bControl!.ref, stream.ref], 'thread order: first part, then the stream');
    assert.deepEqual(rig.removed, [], 'the control message holds answer text: kept');
    await finishOnClock(t, a, { kind: 'success', reply: '' });
    await delivery.close();
  });

  test("lateStart 'hand-over': when the edits already show everything at the start's turn, no start is spent", async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ startPerMinute: 2, lateStart: 'hand-over' });
    const delivery = createDelivery(rig.surface);
    const a = delivery.open(first);
    const b = delivery.open(second);
    await flush();
    a.append({ text: 'first' });
    await advance(t, 200);
    b.append({ text: 'all of it so far' });
    await advance(t, 1500);
    assert.equal(b.mode, 'parked');
    await advance(t, 35_000);
    assert.equal(rig.streams.length, 1, 'no start with nothing to stream');
    assert.equal(b.mode, 'editing', 'the edits caught up: no stream for this reply');
    const [bControl] = rig.surface.messagesIn(second);
    assert.equal(rig.surface.visibleText(bControl!.ref), 'all of it so far');
    b.append({ text: ', and more' });
    await advance(t, 35_000);
    assert.deepEqual(rig.startedWith, ['first'], 'the reply stays with post + edit');
    const stats = await finishOnClock(t, b, { kind: 'success', reply: '' });
    assert.deepEqual(rig.surface.contentOf(bControl!.ref), { text: 'all of it so far, and more', tone: 'success' });
    assert.deepEqual(b.messages, [bControl!.ref]);
    assert.equal(stats.streamCalls ?? 0, 0);
    await finishOnClock(t, a, { kind: 'success', reply: '' });
    await delivery.close();
  });

  test('a start that gets its budget at once streams as before (no edit of the control message with text)', async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ startPerMinute: 2, lateStart: 'hand-over' });
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv);
    await flush();
    reply.append({ text: 'hello' });
    await advance(t, 3000);
    await finishOnClock(t, reply, { kind: 'success', reply: ' world' });
    assert.deepEqual(rig.startedWith, ['hello']);
    assert.equal(rig.text(rig.streams[0]!), 'hello world');
    assert.ok(rig.surface.callsOf('edit').every((c) => c.content!.text === ''), 'no answer text on the control message');
    assert.equal(rig.removed.length, 1);
    await delivery.close();
  });
});
