import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDelivery, EMPTY_REPLY_TEXT, OUTCOME_SEPARATOR } from '../../../src/delivery/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { advance, conv, finishOnClock, flush, settleOnClock, useFakeClock } from './helpers.js';

describe('LiveReply', () => {
  test('posts a progress message at once, with the Stop control', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface();
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv, { stopActionId: 'stop:1' });
    await flush();
    assert.equal(surface.callsOf('post').length, 1);
    const [msg] = surface.messagesIn(conv);
    assert.deepEqual(msg!.content, { text: '', status: 'working…', tone: 'progress', stopActionId: 'stop:1' });
    assert.deepEqual(reply.messages, [msg!.ref]);

    reply.setStatus('queued: position 2');
    await flush();
    assert.equal(surface.contentOf(msg!.ref).status, 'queued: position 2');
    await finishOnClock(t, reply, { kind: 'success', reply: 'ok' });
    await delivery.close();
  });

  test('initial status and no Stop control when the platform has no buttons', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ buttons: false });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv, { stopActionId: 'stop:1', initialStatus: 'queued: position 1' });
    await flush();
    assert.deepEqual(surface.messages()[0]!.content, { text: '', status: 'queued: position 1', tone: 'progress' });
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    await delivery.close();
  });

  test('thinking is shown apart from the answer, trimmed, and cleared when output resumes and at the end', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ maxThinkingChars: 20 });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv, { stopActionId: 's' });
    await flush();
    const ref = reply.messages[0]!;
    reply.append({ role: 'thinking', text: 'Let me consider the options ' });
    reply.append({ role: 'thinking', text: 'carefully now.' });
    await flush();
    const c1 = surface.contentOf(ref);
    assert.equal(c1.text, '');
    assert.ok(c1.thinking!.length <= 20 && c1.thinking!.endsWith('carefully now.'), c1.thinking);
    reply.append({ text: 'The answer ' });
    await flush();
    assert.equal(surface.contentOf(ref).thinking, undefined);
    assert.equal(surface.contentOf(ref).text, 'The answer ');
    reply.append({ role: 'thinking', text: 'double-check' });
    await flush();
    assert.equal(surface.contentOf(ref).thinking, 'double-check');
    assert.equal(surface.contentOf(ref).text, 'The answer ');
    const stats = await finishOnClock(t, reply, { kind: 'success', reply: 'is 42.' });
    assert.deepEqual(surface.contentOf(ref), { text: 'The answer is 42.', tone: 'success' });
    assert.equal(stats.parts, 1);
    assert.equal(stats.posts, 1);
    assert.ok(stats.firstTextLatencyMs !== undefined && stats.firstTextLatencyMs >= 0);
    await delivery.close();
  });

  test('final states: empty success, error after partials, timeout, stopped, interrupted, notices', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface();
    const delivery = createDelivery(surface);
    const cases = [
      { chunks: [], outcome: { kind: 'success', reply: '' } as const, text: EMPTY_REPLY_TEXT, tone: 'success' },
      { chunks: ['half '], outcome: { kind: 'error', message: 'boom' } as const, text: `half ${OUTCOME_SEPARATOR}error: boom`, tone: 'error' },
      { chunks: [], outcome: { kind: 'error', message: 'boom' } as const, text: 'error: boom', tone: 'error' },
      { chunks: ['a'], outcome: { kind: 'timeout', message: 'timed out after 5 s' } as const, text: `a${OUTCOME_SEPARATOR}timed out after 5 s`, tone: 'warning' },
      { chunks: ['a'], outcome: { kind: 'stopped', by: { id: 'U1', name: 'ana' } } as const, text: `a${OUTCOME_SEPARATOR}stopped by @ana`, tone: 'warning' },
      { chunks: [], outcome: { kind: 'interrupted', message: 'the bridge restarted' } as const, text: 'interrupted: the bridge restarted', tone: 'warning' },
    ];
    for (const c of cases) {
      const reply = delivery.open(conv, { stopActionId: 's' });
      for (const text of c.chunks) reply.append({ text });
      await finishOnClock(t, reply, c.outcome);
      assert.deepEqual(surface.contentOf(reply.messages[0]!), { text: c.text, tone: c.tone }, c.outcome.kind);
    }
    const reply = delivery.open(conv, { notices: ['skipped big.bin'], banner: 'this agent runs tools without asking' });
    reply.addNotice('an oversized event was dropped');
    reply.append({ text: 'hi' });
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.equal(
      surface.visibleText(reply.messages[0]!),
      'hi\n\nthis agent runs tools without asking\nskipped big.bin\nan oversized event was dropped',
    );
    await delivery.close();
  });

  test('coalescing under a limiter: one edit in flight, within the budget, final text exact', async (t) => {
    useFakeClock(t);
    // chat.update-like: 60/min for the workspace; every edit held in flight for 300 ms.
    const surface = createRecordingSurface({
      budgets: { edit: (c) => [{ key: `test:${c.space}:edit`, perMinute: 60 }] },
      delay: (op) => (op === 'edit' ? new Promise((r) => setTimeout(r, 300)) : undefined),
    });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv);
    let expected = '';
    for (let i = 0; i < 200; i++) {
      const text = `w${i} `;
      expected += text;
      reply.append({ text });
      await advance(t, 50);
    }
    const stats = await finishOnClock(t, reply, { kind: 'success', reply: 'done' });
    assert.equal(surface.visibleText(reply.messages[0]!), `${expected}done`);
    assert.equal(surface.maxInFlightPerMessage, 1);
    const edits = surface.callsOf('edit');
    assert.equal(stats.edits, edits.length);
    // 10 s of streaming at 1 edit/s: about 11 edits, never 200.
    assert.ok(edits.length <= 13, `${edits.length} edits`);
    for (let i = 1; i < edits.length; i++) assert.ok(edits[i]!.at - edits[i - 1]!.at >= 1000 - 100, 'edits faster than the budget');
    await delivery.close();
  });

  test('a per-workspace budget is shared by concurrent replies', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ budgets: { edit: (c) => [{ key: `test:${c.space}:edit`, perMinute: 30 }] } });
    const delivery = createDelivery(surface);
    const a = delivery.open({ ...conv, thread: 'a' });
    const b = delivery.open({ ...conv, channel: 'C2', thread: 'b' });
    for (let i = 0; i < 100; i++) {
      a.append({ text: `a${i} ` });
      b.append({ text: `b${i} ` });
      await advance(t, 100);
    }
    const [sa, sb] = await settleOnClock(t, [a.finish({ kind: 'success', reply: '' }), b.finish({ kind: 'success', reply: '' })]);
    const edits = surface.callsOf('edit').map((c) => c.at).sort((x, y) => x - y);
    for (let i = 1; i < edits.length; i++) assert.ok(edits[i]! - edits[i - 1]! >= 2000 - 100, 'shared budget exceeded');
    assert.ok(sa.edits > 0 && sb.edits > 0);
    assert.ok(surface.visibleText(a.messages[0]!).endsWith('a99 '));
    assert.ok(surface.visibleText(b.messages[0]!).endsWith('b99 '));
    assert.equal(delivery.limiters.size, 1);
    await delivery.close();
  });

  test('minEditIntervalMs paces edits of one message (Discord-like 1 edit/s)', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ minEditIntervalMs: 1000 });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv);
    for (let i = 0; i < 60; i++) {
      reply.append({ text: `${i} ` });
      await advance(t, 100);
    }
    await finishOnClock(t, reply, { kind: 'success', reply: '' });
    const times = surface.calls.filter((c) => c.op === 'post' || c.op === 'edit').map((c) => c.at);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 1000, `gap ${times[i]! - times[i - 1]!}`);
    assert.ok(times.length <= 8, `${times.length} calls`);
    await delivery.close();
  });

  test('429s are honoured: wait retry-after, slow the bucket, and the final text lands', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ budgets: { edit: [{ key: 'edit', perMinute: 120 }] } });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv);
    await flush();
    surface.failNext('edit', 3, { retryAfterMs: 2000 });
    for (let i = 0; i < 30; i++) {
      reply.append({ text: `x${i} ` });
      await advance(t, 100);
    }
    assert.ok(delivery.limiters.slowdownOf('edit') > 1, 'bucket slowed down');
    const stats = await finishOnClock(t, reply, { kind: 'success', reply: 'end' });
    assert.equal(stats.rateLimitWaits, 3);
    assert.ok(surface.visibleText(reply.messages[0]!).endsWith('x29 end'));
    const edits = surface.callsOf('edit');
    edits.forEach((c, i) => {
      if (!c.ok && i + 1 < edits.length) assert.ok(edits[i + 1]!.at - c.at >= 2000, 'retried before retry-after');
    });
    await delivery.close();
  });

  test('after a 429 on a token-bucket budget the stream keeps updating (no stalled limiter)', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ minEditIntervalMs: 1000, budgets: (_op, c) => [{ key: `ch:${c.channel}`, perMinute: 60, burst: 5 }] });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv);
    for (let i = 0; i < 50; i++) {
      if (i === 10) surface.failNext('edit', 1, { retryAfterMs: 1000 });
      reply.append({ text: `${i} ` });
      await advance(t, 400);
    }
    const limitedAt = surface.callsOf('edit').find((c) => !c.ok)!.at;
    const after = surface.callsOf('edit').filter((c) => c.ok && c.at > limitedAt);
    assert.ok(after.length >= 4, `only ${after.length} edits after the 429`);
    const stats = await finishOnClock(t, reply, { kind: 'success', reply: '' });
    assert.equal(stats.rateLimitWaits, 1);
    assert.ok(surface.visibleText(reply.messages[0]!).endsWith('49 '));
    await delivery.close();
  });

  test('429s on the post and on the final edit are retried until the text lands', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ failWith: { post: [{ retryAfterMs: 1500 }] } });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv);
    reply.append({ text: 'hello' });
    await advance(t, 2000);
    assert.equal(surface.messages().length, 1);
    surface.failNext('edit', 4, { retryAfterMs: 1000 });
    const stats = await finishOnClock(t, reply, { kind: 'success', reply: ' world' });
    assert.equal(surface.visibleText(reply.messages[0]!), 'hello world');
    assert.equal(stats.rateLimitWaits, 5);
    await delivery.close();
  });

  test('other failures are retried a few times; a permanent failure ends finish() without hanging', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface();
    const delivery = createDelivery(surface, { maxAttempts: 4 });
    const ok = delivery.open(conv);
    await flush();
    surface.failNext('edit', 2, { message: 'HTTP 502' });
    await finishOnClock(t, ok, { kind: 'success', reply: 'fine' });
    assert.equal(surface.visibleText(ok.messages[0]!), 'fine');

    const broken = delivery.open(conv);
    await flush();
    surface.failNext('edit', 1000, { message: 'message_not_found' });
    const stats = await finishOnClock(t, broken, { kind: 'success', reply: 'lost' });
    assert.equal(stats.edits, 0);
    const failed = surface.callsOf('edit').filter((c) => !c.ok && c.ref?.id === broken.messages[0]!.id);
    assert.equal(failed.length, 4);
    await delivery.close();
  });

  test('splits across parts at clean boundaries, fences repaired, text neither lost nor duplicated', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ maxTextChars: 120 });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv, { stopActionId: 'stop' });
    const code = Array.from({ length: 12 }, (_, i) => `let v${i} = ${i};`).join('\n');
    const answer = `Intro paragraph with some words in it.\n\n\`\`\`ts\n${code}\n\`\`\`\n\nAnd a closing paragraph that goes on for a while to pass the limit once more.`;
    for (let i = 0; i < answer.length; i += 7) {
      reply.append({ text: answer.slice(i, i + 7) });
      await advance(t, 20);
    }
    const live = surface.messages().at(-1)!;
    assert.equal(live.content.stopActionId, 'stop', 'the newest part carries the Stop control');
    for (const m of surface.messages().slice(0, -1)) {
      assert.equal(m.content.stopActionId, undefined);
      assert.equal(m.content.status, undefined);
    }
    const stats = await finishOnClock(t, reply, { kind: 'success', reply: '' });
    const shown = surface.messages().map((m) => m.content.text);
    assert.equal(stats.parts, shown.length);
    assert.ok(shown.length >= 3, `${shown.length} parts`);
    assert.deepEqual(reply.messages.map((r) => r.id), surface.messages().map((m) => m.ref.id));
    for (const s of shown) assert.ok(s.length <= 120);
    // Every part the user sees, minus fence lines and line breaks, rebuilds the answer: nothing lost or doubled.
    const strip = (s: string) => s.replace(/```ts|```/g, '').replace(/\n/g, '');
    assert.equal(shown.map(strip).join(''), strip(answer));
    for (const s of shown) assert.equal(s.split('\n').filter((l) => l.startsWith('```')).length % 2, 0, `unbalanced: ${s}`);
    assert.ok(shown.some((s, i) => i > 0 && s.startsWith('```ts\n') && shown[i - 1]!.endsWith('```')), 'fence closed and reopened');
    assert.equal(surface.contentOf(surface.messages().at(-1)!.ref).tone, 'success');
    await delivery.close();
  });

  test('say() posts one-off messages through the same limiters, split when long', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ maxTextChars: 50, budgets: { post: [{ key: 'post', perMinute: 60 }] } });
    const delivery = createDelivery(surface);
    let ref: unknown;
    void delivery.say(conv, 'busy: try again later', 'warning').then((r) => (ref = r));
    await advance(t, 200);
    assert.deepEqual(surface.messages()[0]!.content, { text: 'busy: try again later', tone: 'warning' });
    assert.deepEqual(ref, surface.messages()[0]!.ref);
    void delivery.say(conv, `${'word '.repeat(25)}`);
    await advance(t, 5000);
    const posts = surface.callsOf('post');
    assert.equal(posts.length, 4);
    for (let i = 1; i < posts.length; i++) assert.ok(posts[i]!.at - posts[i - 1]!.at >= 1000 - 100);
    assert.equal(surface.messages().slice(1).map((m) => m.content.text).join(''), 'word '.repeat(25));
    assert.deepEqual(delivery.totals, { posts: 4, edits: 0, rateLimitWaits: 0 });
    await delivery.close();
  });
});
