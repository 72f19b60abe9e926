import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { nextStep, type CoalesceState } from '../../../src/delivery/message/message-slot-state.js';

describe('coalescing policy', () => {
  test('idle when the message already shows the desired content', () => {
    assert.deepEqual(nextStep({ desired: { text: 'a' }, shown: { text: 'a' }, inFlight: false, notBefore: 0 }, 0, 1000), { kind: 'idle' });
  });

  test('busy while an operation is in flight, whatever changed', () => {
    assert.deepEqual(nextStep({ desired: { text: 'b' }, shown: { text: 'a' }, inFlight: true, notBefore: 0 }, 0, 0), { kind: 'busy' });
  });

  test('waits out the minimum edit interval and a failure back-off', () => {
    const s: CoalesceState = { desired: { text: 'b' }, shown: { text: 'a' }, inFlight: false, lastSentAt: 100, notBefore: 0 };
    assert.deepEqual(nextStep(s, 600, 1000), { kind: 'wait', ms: 500 });
    assert.deepEqual(nextStep(s, 1100, 1000), { kind: 'send', content: { text: 'b' } });
    assert.deepEqual(nextStep({ ...s, notBefore: 2000 }, 1100, 1000), { kind: 'wait', ms: 900 });
  });

  test('the first answer text goes at once, after the placeholder post or a thinking edit; the next edit is paced from it', () => {
    const placeholder: CoalesceState = { desired: { text: 'Hello' }, shown: { text: '', status: 'working…' }, inFlight: false, lastSentAt: 100, notBefore: 0 };
    assert.deepEqual(nextStep(placeholder, 110, 1000), { kind: 'send', content: { text: 'Hello' } });
    const thinking: CoalesceState = { ...placeholder, shown: { text: '', thinking: 'hmm' } };
    assert.deepEqual(nextStep(thinking, 110, 1000), { kind: 'send', content: { text: 'Hello' } });
    // Still paced: a thinking-only change, a change of text already shown, a failure's back-off.
    assert.deepEqual(nextStep({ ...placeholder, desired: { text: '', thinking: 'hmm' } }, 110, 1000), { kind: 'wait', ms: 990 });
    assert.deepEqual(nextStep({ ...placeholder, shown: { text: 'Hello' }, desired: { text: 'Hello world' }, lastSentAt: 110 }, 120, 1000), { kind: 'wait', ms: 990 });
    assert.deepEqual(nextStep({ ...placeholder, notBefore: 400 }, 110, 1000), { kind: 'wait', ms: 290 });
    assert.deepEqual(nextStep({ ...placeholder, inFlight: true }, 110, 1000), { kind: 'busy' });
  });

  test('property: one in flight, paced, no backlog, and the latest content lands', () => {
    type Ev = { kind: 'change' } | { kind: 'empty' } | { kind: 'advance'; ms: number } | { kind: 'complete'; ok: boolean };
    const ev: fc.Arbitrary<Ev> = fc.oneof(
      fc.constant<Ev>({ kind: 'change' }),
      fc.constant<Ev>({ kind: 'empty' }),
      fc.integer({ min: 1, max: 700 }).map<Ev>((ms) => ({ kind: 'advance', ms })),
      fc.boolean().map<Ev>((ok) => ({ kind: 'complete', ok })),
    );
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 200 }), fc.integer({ min: 0, max: 1500 }), (events, minInterval) => {
        let now = 0;
        let version = 0;
        const s: CoalesceState = { desired: { text: 'v0' }, shown: { text: 'v0' }, inFlight: false, notBefore: 0 };
        let sending: { text: string } | undefined;
        const sends: number[] = [];
        /** For each send: it put the first answer text into a message that showed none. */
        const firstText: boolean[] = [];
        const failed: boolean[] = [];
        const pump = () => {
          const step = nextStep(s, now, minInterval);
          if (step.kind === 'send') {
            assert.equal(sending, undefined, 'a second operation while one is in flight');
            firstText.push(s.shown?.text === '' && step.content.text !== '');
            s.inFlight = true;
            s.lastSentAt = now;
            sending = step.content;
            sends.push(now);
          }
        };
        const complete = (ok: boolean) => {
          if (!sending) return;
          if (ok) s.shown = sending;
          else s.notBefore = now + 300;
          failed[sends.length - 1] = !ok;
          s.inFlight = false;
          sending = undefined;
        };
        for (const e of events) {
          if (e.kind === 'change') s.desired = { text: `v${++version}` };
          else if (e.kind === 'empty') { s.desired = { text: '', thinking: `t${++version}` }; }
          else if (e.kind === 'advance') now += e.ms;
          else complete(e.ok);
          pump();
        }
        // Drain: let time pass and every operation succeed.
        for (let i = 0; i < 10; i++) {
          complete(true);
          now += Math.max(minInterval, 300);
          pump();
        }
        assert.deepEqual(s.shown, s.desired);
        for (let i = 1; i < sends.length; i++) {
          if (!firstText[i]) assert.ok(sends[i]! - sends[i - 1]! >= minInterval, 'edits closer than the interval');
        }
        // An unpaced send follows another only as the retry of one that failed (after its back-off).
        for (let i = 1; i < sends.length; i++) assert.ok(!(firstText[i] && firstText[i - 1] && !failed[i - 1]), 'two unpaced sends in a row');
        assert.ok(sends.length <= version + 10, 'more sends than changes: a backlog');
      }),
      { numRuns: 500 },
    );
  });
});
