/**
 * Property: native streaming with a short start budget (late starts, fallback or hand-over) and a
 * permission prompt in the middle (continueBelow): the reply's messages hold the exact answer, in
 * order, each character once; what was appended before the prompt is above it, the rest below it.
 */
import type { MessageRef } from '../../../src/chat.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createDelivery } from '../../../src/delivery/index.js';
import { advance, conv, finishOnClock, settleOnClock, useFakeClock } from './helpers.js';
import { streamingRig } from './streaming-rig.js';

const chunk = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[a-z]{1,8} $/) },
  { weight: 1, arbitrary: fc.constantFrom('\n', '\n\n', ' ') },
);
const step = fc.record({ chunk, thinking: fc.boolean(), waitMs: fc.integer({ min: 0, max: 1500 }) });

test('property: late stream starts and a prompt in the middle keep the text exact and in order', async (t) => {
  useFakeClock(t);
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { maxLength: 30 }),
      fc.array(step, { maxLength: 30 }),
      fc.boolean(),
      fc.constantFrom('edit', 'hand-over') as fc.Arbitrary<'edit' | 'hand-over'>,
      fc.constantFrom(2, 20, 600),
      fc.constantFrom(0, 500),
      async (beforeSteps, afterSteps, busy, lateStart, startPerMinute, minEditIntervalMs) => {
        const rig = streamingRig({ startPerMinute, lateStart, minEditIntervalMs, maxChars: 200 });
        const delivery = createDelivery(rig.surface);
        // another reply takes the start budget first when `busy`
        const other = busy ? delivery.open({ ...conv, thread: 'other' }) : undefined;
        other?.append({ text: 'other answer' });
        const reply = delivery.open(conv, { stopActionId: 'stop' });
        let before = '';
        let after = '';
        for (const s of beforeSteps) {
          reply.append(s.thinking ? { role: 'thinking', text: s.chunk } : { text: s.chunk });
          if (!s.thinking) before += s.chunk;
          await advance(t, s.waitMs, 100);
        }
        const hasPrompt = afterSteps.length > 0;
        let promptAt = Infinity;
        if (hasPrompt) {
          let ready = false;
          reply.posted().then(() => (ready = true));
          while (!ready) await advance(t, 50, 50);
          promptAt = rig.surface.calls.length;
          await rig.surface.postPrompt(conv, { promptId: 'p', toolName: 'Bash', inputPreview: 'ls', state: 'pending' });
          reply.continueBelow();
        }
        for (const s of afterSteps) {
          reply.append(s.thinking ? { role: 'thinking', text: s.chunk } : { text: s.chunk });
          if (!s.thinking) after += s.chunk;
          await advance(t, s.waitMs, 100);
        }
        await finishOnClock(t, reply, { kind: 'success', reply: '' });
        if (other) await settleOnClock(t, [other.finish({ kind: 'success', reply: '' })]);

        // where each message sits in the thread, and what it shows
        const position = (ref: MessageRef): number => {
          const s = rig.streams.findIndex((x) => x.ref.id === ref.id);
          if (s >= 0) return rig.startedAfterCalls[s]! - 0.5; // after the calls made before it
          return rig.surface.calls.findIndex((c) => c.op === 'post' && c.ok && c.ref?.id === ref.id);
        };
        const textOf = (ref: MessageRef): string => {
          const s = rig.streams.find((x) => x.ref.id === ref.id);
          return s ? rig.text(s) : rig.surface.visibleText(ref);
        };
        const refs = reply.messages;
        const positions = refs.map(position);
        assert.deepEqual([...positions].sort((a, b) => a - b), positions, 'messages listed in thread order');
        const above = refs.filter((_, i) => positions[i]! < promptAt).map(textOf).join('');
        const below = refs.filter((_, i) => positions[i]! > promptAt).map(textOf).join('');
        const all = before + after;
        if (all.trim() === '') return void (await delivery.close());
        if (!hasPrompt) assert.equal(above, all);
        else {
          const expectAbove = before;
          // a part that showed nothing yet is deleted and its empty text continues below
          assert.equal(above + below, all, 'every character once');
          assert.equal(above, expectAbove.trim() === '' ? '' : expectAbove, 'the text before the prompt stays above it');
        }
        for (const ref of refs) {
          if (rig.streams.some((x) => x.ref.id === ref.id)) continue;
          const c = rig.surface.contentOf(ref);
          assert.equal(c.stopActionId, undefined, 'Stop left behind');
          assert.equal(c.thinking, undefined, 'thinking left behind');
        }
        for (const id of rig.removed) {
          if (!refs.some((r) => r.id === id)) continue;
          assert.fail(`a removed message is listed: ${id}`);
        }
        await delivery.close();
      },
    ),
    { numRuns: 100 },
  );
});
