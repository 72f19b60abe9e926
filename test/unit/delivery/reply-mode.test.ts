/**
 * A live reply's mode is one value (reply-mode.ts) changed only by named transitions: the legal
 * moves, and editing -> finished. The streaming transitions are asserted where their behaviour
 * is tested: native-stream (fallBackToEdits), continue-below, late-start (park, resumeStream).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDelivery } from '../../../src/delivery/index.js';
import { canMove } from '../../../src/delivery/reply/reply-mode.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { conv, finishOnClock, useFakeClock } from './helpers.js';

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
});
