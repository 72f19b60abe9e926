import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { nextStep, type CoalesceState } from '../../../src/delivery/coalesce.js';

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

  test('property: one in flight, paced, no backlog, and the latest content lands', () => {
    type Ev = { kind: 'change' } | { kind: 'advance'; ms: number } | { kind: 'complete'; ok: boolean };
    const ev: fc.Arbitrary<Ev> = fc.oneof(
      fc.constant<Ev>({ kind: 'change' }),
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
        const pump = () => {
          const step = nextStep(s, now, minInterval);
          if (step.kind === 'send') {
            assert.equal(sending, undefined, 'a second operation while one is in flight');
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
          s.inFlight = false;
          sending = undefined;
        };
        for (const e of events) {
          if (e.kind === 'change') s.desired = { text: `v${++version}` };
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
        for (let i = 1; i < sends.length; i++) assert.ok(sends[i]! - sends[i - 1]! >= minInterval, 'edits closer than the interval');
        assert.ok(sends.length <= version + 10, 'more sends than changes: a backlog');
      }),
      { numRuns: 500 },
    );
  });
});
