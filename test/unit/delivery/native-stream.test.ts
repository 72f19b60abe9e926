/**
 * LiveReply with a Surface that streams natively (Surface.streaming): the answer goes through
 * start / append / stop, coalesced; status, thinking and Stop live in a control message that is
 * removed at the end; null from start() and broken streams fall back to post + edit.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDelivery, OUTCOME_SEPARATOR } from '../../../src/delivery/index.js';
import { streamingRig } from './streaming-rig.js';
import { advance, conv, finishOnClock, flush, useFakeClock } from './helpers.js';

const fences = (s: string): number => (s.match(/^\s*```/gm) ?? []).length;

describe('LiveReply with native streaming', () => {
  test('partials are coalesced into few appends; the stop carries the rest; the control message goes away', async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ minEditIntervalMs: 1000 });
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv, { stopActionId: 'stop:1', recipient: { id: 'U1' } });
    await flush();
    const [control] = rig.surface.messagesIn(conv);
    assert.deepEqual(control!.content, { text: '', status: 'working…', tone: 'progress', stopActionId: 'stop:1' });
    reply.append({ role: 'thinking', text: 'pondering' });
    await advance(t, 1100);
    assert.equal(rig.surface.contentOf(control!.ref).thinking, 'pondering', 'thinking on the control message');
    let expected = '';
    for (let i = 1; i <= 60; i++) {
      reply.append({ text: `w${i} ` });
      expected += `w${i} `;
      await advance(t, 50);
    }
    assert.equal(rig.surface.contentOf(control!.ref).thinking, undefined, 'thinking cleared when output resumes');
    assert.equal(rig.surface.contentOf(control!.ref).text, '', 'the answer is not in the control message');
    const stats = await finishOnClock(t, reply, { kind: 'success', reply: 'done.' });
    assert.equal(rig.streams.length, 1);
    const [s] = rig.streams;
    assert.equal(rig.text(s!), `${expected}done.`);
    assert.deepEqual(s!.stop, { text: s!.stop!.text, tone: 'success' });
    const appends = rig.calls.filter((c) => c === 'append').length;
    assert.ok(appends >= 2 && appends <= 4, `${appends} appends for 60 partials over 3 s at one per second`);
    assert.deepEqual(rig.removed, [control!.ref.id]);
    assert.deepEqual(reply.messages, [s!.ref]);
    assert.equal(stats.parts, 1);
    assert.equal(stats.streamCalls, 1 + appends + 1);
    await delivery.close();
  });

  test('start() answering null: the control message becomes the answer (post + edit), exact text', async (t) => {
    useFakeClock(t);
    const rig = streamingRig();
    rig.start = 'null';
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv, { stopActionId: 's' });
    assert.equal(reply.mode, 'streaming');
    await flush();
    reply.append({ text: 'hello ' });
    await advance(t, 100);
    assert.equal(reply.mode, 'editing', 'fallBackToEdits');
    reply.append({ text: 'world' });
    await advance(t, 100);
    const ref = reply.messages[0]!;
    assert.equal(rig.surface.contentOf(ref).text, 'hello world', 'shown through edits');
    await finishOnClock(t, reply, { kind: 'error', message: 'boom' });
    assert.deepEqual(rig.surface.contentOf(ref), { text: `hello world${OUTCOME_SEPARATOR}error: boom`, tone: 'error' });
    assert.deepEqual(rig.calls, ['start'], 'decided once');
    assert.deepEqual(rig.removed, []);
    assert.deepEqual(reply.messages, [ref]);
    await delivery.close();
  });

  test('an answer that arrives only at the end never streams (one edit of the control message)', async (t) => {
    useFakeClock(t);
    const rig = streamingRig();
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv);
    await flush();
    await finishOnClock(t, reply, { kind: 'success', reply: 'all at once' });
    assert.deepEqual(rig.calls, []);
    assert.equal(rig.surface.visibleText(reply.messages[0]!), 'all at once');
    await delivery.close();
  });

  test('a stream that ends under us: the rest continues in a posted message, the text stays exact', async (t) => {
    useFakeClock(t);
    const rig = streamingRig();
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv, { stopActionId: 's' });
    await flush();
    reply.append({ text: 'one ' });
    await advance(t, 100);
    rig.endNextAppend = true;
    reply.append({ text: 'two ' });
    await advance(t, 100);
    reply.append({ text: 'three' });
    await advance(t, 100);
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.equal(rig.streams.length, 1);
    assert.equal(rig.text(rig.streams[0]!), 'one ');
    const [streamRef, posted] = reply.messages;
    assert.equal(streamRef!.id, 'stream-1');
    assert.deepEqual(rig.surface.contentOf(posted!), { text: 'two three', tone: 'success' });
    assert.equal(rig.removed.length, 1, 'the control message was removed');
    await delivery.close();
  });

  test('429 on append is honoured and the text still lands exactly', async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ appendPerMinute: 600 });
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv);
    await flush();
    reply.append({ text: 'a' });
    await advance(t, 100);
    rig.limitAppends = 2;
    reply.append({ text: 'b' });
    await advance(t, 100);
    reply.append({ text: 'c' });
    const stats = await finishOnClock(t, reply, { kind: 'success', reply: 'd' });
    assert.equal(rig.text(rig.streams[0]!), 'abcd');
    assert.equal(stats.rateLimitWaits, 2);
    await delivery.close();
  });

  test('an answer over the stream limit continues in new streams at clean boundaries, fences closed and reopened', async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ maxChars: 300 });
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv);
    await flush();
    let source = 'Intro paragraph.\n\n```js\n';
    for (let i = 0; i < 40; i++) source += `line(${i});\n`;
    source += '```\n\nOutro words after the code.';
    for (let i = 0; i < source.length; i += 37) {
      reply.append({ text: source.slice(i, i + 37) });
      await advance(t, 25);
    }
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.ok(rig.streams.length >= 2, `${rig.streams.length} streams`);
    const texts = [...rig.streams.map((s) => rig.text(s)), ...reply.messages.slice(rig.streams.length).map((r) => rig.surface.visibleText(r))];
    for (const text of texts) {
      assert.ok(text.length <= 300 + 8, `part of ${text.length}`);
      assert.equal(fences(text) % 2, 0, `balanced fences:\n${text}`);
    }
    const strip = (s: string): string => s.split('\n').filter((l) => !l.startsWith('```')).join('\n');
    assert.equal(strip(texts.join('')), strip(source));
    assert.ok(texts.slice(1).some((x) => x.startsWith('```js\n')), 'the fence is reopened with its language');
    await delivery.close();
  });

  test('a first start still waiting for its budget when the reply finishes is dropped: one edit instead of start + stop', async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ startPerMinute: 2 });
    const delivery = createDelivery(rig.surface);
    const first = delivery.open({ ...conv, thread: 'a' });
    const second = delivery.open({ ...conv, thread: 'b' });
    await flush();
    first.append({ text: 'first answer' });
    await advance(t, 200);
    second.append({ text: 'second answer' });
    await advance(t, 1000);
    assert.deepEqual(rig.calls, ['start'], 'the second start waits for the budget (one per 30 s)');
    await finishOnClock(t, second, { kind: 'success', reply: '' }, 5_000);
    assert.deepEqual(rig.calls, ['start'], 'no start was spent on the finished reply');
    assert.equal(rig.surface.visibleText(second.messages[0]!), 'second answer');
    await finishOnClock(t, first, { kind: 'success', reply: '' });
    assert.equal(rig.text(rig.streams[0]!), 'first answer');
    await delivery.close();
  });
});
