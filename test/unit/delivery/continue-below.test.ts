/**
 * LiveReply.continueBelow(): after something is posted below the reply (a permission prompt), the
 * current part is frozen as it is and the reply continues in a new message below, in both the
 * post + edit path and the native-stream path; no text lost or repeated, no empty message left.
 */
import type { MessageRef } from '../../../src/chat.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDelivery } from '../../../src/delivery/index.js';
import { createRecordingSurface, type RecordingSurface } from '../../fakes/recording-surface.js';
import { advance, conv, finishOnClock, flush, useFakeClock } from './helpers.js';
import { streamingRig } from './streaming-rig.js';

const view = { promptId: 'p1', toolName: 'Bash', inputPreview: 'ls', state: 'pending' as const };

describe('LiveReply.continueBelow (post + edit)', () => {
  test('the part above the prompt is frozen; output after it goes to a new message below', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ minEditIntervalMs: 100 });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv, { stopActionId: 'stop:1' });
    reply.append({ text: 'Before the prompt. ' });
    await advance(t, 300);
    await reply.posted();
    const prompt = await surface.postPrompt(conv, view);
    reply.continueBelow();
    await advance(t, 300);
    reply.append({ role: 'thinking', text: 'hmm' });
    reply.append({ text: 'After it.' });
    await advance(t, 300);
    const [first, second] = reply.messages;
    assert.deepEqual(surface.contentOf(first!), { text: 'Before the prompt. ' }, 'no status, thinking or Stop on the frozen part');
    assert.equal(surface.contentOf(second!).stopActionId, 'stop:1', 'the new message carries Stop');
    assert.equal(surface.contentOf(second!).text, 'After it.');
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    const posts = surface.calls.filter((c) => c.ok && (c.op === 'post' || c.op === 'postPrompt')).map((c) => c.ref!.id);
    assert.deepEqual(posts, [first!.id, prompt.id, second!.id], 'thread order: answer before, prompt, answer after');
    assert.deepEqual(surface.contentOf(first!), { text: 'Before the prompt. ' });
    assert.deepEqual(surface.contentOf(second!), { text: 'After it.', tone: 'success' });
    await delivery.close();
  });

  test('an open code fence is closed above the prompt and reopened below it', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface();
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv);
    reply.append({ text: 'Code:\n```js\nconst a = 1;\n' });
    await advance(t, 100);
    reply.continueBelow();
    reply.append({ text: 'const b = 2;\n```\ndone' });
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    const [first, second] = reply.messages;
    assert.equal(surface.visibleText(first!), 'Code:\n```js\nconst a = 1;\n```');
    assert.equal(surface.visibleText(second!), '```js\nconst b = 2;\n```\ndone');
    await delivery.close();
  });

  test('a part with no answer text yet is deleted (not left empty above the prompt)', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface();
    const removed: string[] = [];
    Object.assign(surface, { remove: async (ref: MessageRef) => void removed.push(ref.id) });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv, { stopActionId: 's' });
    reply.append({ role: 'thinking', text: 'considering' });
    await advance(t, 100);
    const [first] = reply.messages;
    reply.continueBelow();
    reply.append({ text: 'the answer' });
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.deepEqual(removed, [first!.id]);
    assert.equal(reply.messages.length, 1);
    assert.notEqual(reply.messages[0]!.id, first!.id);
    assert.deepEqual(surface.contentOf(reply.messages[0]!), { text: 'the answer', tone: 'success' });
    await delivery.close();
  });

  test('without Surface.remove, a part with no answer text yet is kept and reused', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface();
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv);
    await flush();
    reply.continueBelow();
    reply.append({ text: 'the answer' });
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.equal(surface.callsOf('post').length, 1);
    assert.deepEqual(surface.contentOf(reply.messages[0]!), { text: 'the answer', tone: 'success' });
    await delivery.close();
  });
});

describe('LiveReply.continueBelow (native streaming)', () => {
  test('the stream is stopped where it is, the control message goes, the rest continues below', async (t) => {
    useFakeClock(t);
    const rig = streamingRig();
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv, { stopActionId: 's' });
    await flush();
    reply.append({ text: 'streamed before. ' });
    await advance(t, 200);
    assert.equal(rig.streams.length, 1);
    assert.equal(reply.mode, 'streaming');
    const [control] = rig.surface.messagesIn(conv);
    const prompt = await rig.surface.postPrompt(conv, view);
    reply.continueBelow();
    assert.equal(reply.mode, 'editing', 'continued below: post + edit from here on');
    reply.append({ text: 'after.' });
    await advance(t, 200);
    const stream = rig.streams[0]!;
    assert.deepEqual(stream.stop, { text: '' }, 'stopped without status');
    assert.deepEqual(rig.removed, [control!.ref.id], 'the control message above the prompt is deleted');
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    const [first, second, ...rest] = reply.messages;
    assert.deepEqual(rest, []);
    assert.equal(first!.id, stream.ref.id);
    assert.equal(rig.text(stream), 'streamed before. ');
    assert.deepEqual(rig.surface.contentOf(second!), { text: 'after.', tone: 'success' });
    const posts = rig.surface.calls.filter((c) => c.ok && (c.op === 'post' || c.op === 'postPrompt')).map((c) => c.ref!.id);
    assert.deepEqual(posts.slice(1), [prompt.id, second!.id], 'the new message is posted after the prompt');
    assert.equal(rig.streams.length, 1, 'the rest goes through post + edit (no second Tier 2 start)');
    await delivery.close();
  });

  test('a stream start still waiting: the text shown so far is frozen on the control message above the prompt', async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ startPerMinute: 1 });
    const delivery = createDelivery(rig.surface);
    const other = delivery.open({ ...conv, thread: 'x' });
    const reply = delivery.open(conv, { stopActionId: 's' });
    await flush();
    other.append({ text: 'takes the start budget' });
    await advance(t, 100);
    reply.append({ text: 'waiting for a start. ' });
    await advance(t, 200);
    const [control] = rig.surface.messagesIn(conv);
    reply.continueBelow();
    reply.append({ text: 'after.' });
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.deepEqual(rig.calls, ['start'], 'no start for this reply');
    assert.deepEqual(reply.messages.map((m) => rig.surface.contentOf(m)), [
      { text: 'waiting for a start. ' },
      { text: 'after.', tone: 'success' },
    ]);
    assert.equal(reply.messages[0]!.id, control!.ref.id);
    assert.deepEqual(rig.removed, []);
    await finishOnClock(t, other, { kind: 'success', reply: '' });
    await delivery.close();
  });
});

/**
 * The most messages of the surface that showed a Stop at once, checked each time a post, edit or
 * deletion landed (a deleted message no longer counts).
 */
function watchStops(surface: RecordingSurface, removed: ReadonlySet<string> | readonly string[]): () => number {
  let most = 0;
  const gone = (id: string): boolean => ('has' in removed ? removed.has(id) : removed.includes(id));
  const count = (): number => surface.messages().filter((m) => m.content.stopActionId && !gone(m.ref.id)).length;
  const post = surface.post.bind(surface);
  const edit = surface.edit.bind(surface);
  surface.post = async (c, content) => {
    const ref = await post(c, content);
    most = Math.max(most, count());
    return ref;
  };
  surface.edit = async (ref, content) => {
    await edit(ref, content);
    most = Math.max(most, count());
  };
  return () => most;
}

/** Edits (and deletions) land 500 ms after they are made: a new post can overtake them. */
const slowEdits = { delay: (op: string) => (op === 'edit' ? new Promise<void>((r) => setTimeout(r, 500)) : undefined) };

describe('LiveReply: one Stop at a time', () => {
  test('a prompt below a part with text: the part below shows Stop once the part above lost it', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ minEditIntervalMs: 100, ...slowEdits });
    const most = watchStops(surface, []);
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv, { stopActionId: 's' });
    reply.append({ text: 'Before the prompt. ' });
    await advance(t, 1000);
    await surface.postPrompt(conv, view);
    reply.continueBelow();
    await advance(t, 1000);
    assert.deepEqual(reply.messages.map((m) => surface.contentOf(m).stopActionId), [undefined, 's'], 'one Stop, below the prompt');
    reply.append({ text: 'After it.' });
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.equal(most(), 1);
    await delivery.close();
  });

  test('while a prompt posted through the reply waits, the live part below says so; after the decision it works again', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ minEditIntervalMs: 100 });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv, { stopActionId: 's' });
    reply.append({ text: 'Before the prompt. ' });
    await advance(t, 300);
    const prompt = reply.postPrompt(() => view);
    await advance(t, 300);
    assert.ok((await prompt.shown).ok);
    const below = () => surface.contentOf(reply.messages[1]!);
    assert.equal(below().status, 'waiting for a decision…');
    assert.equal(below().stopActionId, 's');
    void prompt.update({ ...view, state: 'allowed' });
    await advance(t, 300);
    assert.equal(below().status, 'working…');
    reply.append({ text: 'After it.' });
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.deepEqual(below(), { text: 'After it.', tone: 'success' });
    await delivery.close();
  });

  test('a prompt below a part without text: its deletion lands before the part below is posted', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface(slowEdits);
    const removed = new Set<string>();
    Object.assign(surface, { remove: (ref: MessageRef) => new Promise<void>((r) => setTimeout(() => r(void removed.add(ref.id)), 500)) });
    const most = watchStops(surface, removed);
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv, { stopActionId: 's' });
    reply.append({ role: 'thinking', text: 'considering' });
    await advance(t, 100);
    reply.continueBelow();
    await advance(t, 1000);
    assert.equal(removed.size, 1);
    reply.append({ text: 'the answer' });
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.equal(most(), 1);
    await delivery.close();
  });

  test('an answer past the message limit: the next part shows Stop once the full one lost it', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ maxTextChars: 100, minEditIntervalMs: 100, ...slowEdits });
    const most = watchStops(surface, []);
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv, { stopActionId: 's' });
    await advance(t, 100);
    for (let i = 0; i < 6; i++) {
      reply.append({ text: `line ${i} ${'x'.repeat(40)}\n` });
      await advance(t, 200);
    }
    await advance(t, 2000);
    assert.ok(reply.messages.length >= 3, `split over ${reply.messages.length} messages`);
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.equal(most(), 1);
    await delivery.close();
  });

  test('a prompt while streaming: the part below shows Stop once the control message above is gone', async (t) => {
    useFakeClock(t);
    const rig = streamingRig();
    // the control message is deleted 500 ms after it is asked
    Object.assign(rig.surface, { remove: (ref: MessageRef) => new Promise<void>((r) => setTimeout(() => r(void rig.removed.push(ref.id)), 500)) });
    const most = watchStops(rig.surface, rig.removed);
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv, { stopActionId: 's' });
    await flush();
    reply.append({ text: 'streamed before. ' });
    await advance(t, 200);
    assert.equal(rig.streams.length, 1);
    await rig.surface.postPrompt(conv, view);
    reply.continueBelow();
    reply.append({ text: 'after.' });
    await advance(t, 1000);
    assert.equal(rig.removed.length, 1, 'the control message is gone');
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.equal(most(), 1);
    await delivery.close();
  });
});
