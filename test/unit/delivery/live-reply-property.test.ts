import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createDelivery } from '../../../src/delivery/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { advance, conv, finishOnClock, useFakeClock } from './helpers.js';

const chunk = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[a-z]{1,8} $/) },
  { weight: 1, arbitrary: fc.constantFrom('\n', '\n\n', '😀', ' ') },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z]{20,60}$/) },
);
const step = fc.record({
  chunk,
  thinking: fc.boolean(),
  waitMs: fc.integer({ min: 0, max: 400 }),
  rateLimit: fc.option(fc.integer({ min: 100, max: 3000 }), { freq: 8 }),
});

test('property: any stream, any limit, injected 429s: parts fit, one edit in flight, the final text is exact', async (t) => {
  useFakeClock(t);
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { maxLength: 60 }),
      fc.integer({ min: 30, max: 300 }),
      fc.constantFrom(0, 500, 1000),
      fc.string({ maxLength: 40 }).filter((s) => !/[`~]/.test(s)),
      async (steps, maxTextChars, minEditIntervalMs, reply) => {
        const surface = createRecordingSurface({
          maxTextChars,
          minEditIntervalMs,
          budgets: { edit: [{ key: 'ws:edit', perMinute: 120 }], post: (c) => [{ key: `post:${c.channel}`, perMinute: 60 }] },
        });
        const delivery = createDelivery(surface);
        const live = delivery.open(conv, { stopActionId: 'stop' });
        let answer = '';
        for (const s of steps) {
          if (s.rateLimit !== null) surface.failNext('edit', 1, { retryAfterMs: s.rateLimit });
          if (s.thinking) live.append({ role: 'thinking', text: s.chunk });
          else {
            live.append({ text: s.chunk });
            answer += s.chunk;
          }
          await advance(t, s.waitMs, 50);
        }
        await finishOnClock(t, live, { kind: 'success', reply });
        const parts = surface.messages().map((m) => m.content);
        const expected = answer + reply;
        if (expected.trim() !== '') assert.equal(parts.map((p) => p.text).join(''), expected);
        for (const p of parts) {
          assert.ok(p.text.length <= maxTextChars, `part of ${p.text.length} > ${maxTextChars}`);
          assert.equal(p.stopActionId, undefined, 'Stop control left behind');
          assert.equal(p.thinking, undefined, 'thinking left behind');
        }
        assert.equal(parts.at(-1)!.tone, 'success');
        assert.equal(surface.maxInFlightPerMessage, 1);
        assert.deepEqual(live.messages.map((r) => r.id), surface.messages().map((m) => m.ref.id));
        await delivery.close();
      },
    ),
    { numRuns: 40 },
  );
});

test('property: streams with code fences: parts fit and keep every character outside the added fence lines', async (t) => {
  useFakeClock(t);
  const fenced = fc.oneof(chunk, fc.constantFrom('\n```ts\n', '\n```\n', 'let x = 1;\n'));
  await fc.assert(
    fc.asyncProperty(fc.array(fenced, { maxLength: 80 }), fc.integer({ min: 40, max: 200 }), async (chunks, maxTextChars) => {
      const surface = createRecordingSurface({ maxTextChars, budgets: { edit: [{ key: 'e', perMinute: 600 }] } });
      const delivery = createDelivery(surface);
      const live = delivery.open(conv);
      for (const c of chunks) {
        live.append({ text: c });
        await advance(t, 50, 50);
      }
      await finishOnClock(t, live, { kind: 'success', reply: '' });
      const texts = surface.messages().map((m) => m.content.text);
      for (const p of texts) assert.ok(p.length <= maxTextChars);
      const strip = (s: string) => s.replace(/```ts|```/g, '').replace(/\n/g, '');
      const answer = chunks.join('');
      if (answer.trim() !== '') assert.equal(texts.map(strip).join(''), strip(answer));
      await delivery.close();
    }),
    { numRuns: 30 },
  );
});
