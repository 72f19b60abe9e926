/**
 * A turn's reactions (createTurnReactions, src/bridge/turns/turn.ts): 👀 at most once and always before the end state, in
 * the order asked for even when a call is slow, and a failing call does not stop the next.
 */
import type { SourceMessageRef } from '../../../src/chat.js';
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createTurnReactions } from '../../../src/bridge/turns/turn.js';
import type { ReactionState } from '../../../src/delivery/surface.js';

const source: SourceMessageRef = { id: 'C1/M1', conversation: { space: 'T1', channel: 'C1', thread: '' } };

/** A delivery whose react calls stay open until the test lets them finish. */
function heldDelivery(fail: ReactionState[] = []) {
  const calls: ReactionState[] = [];
  const open: Array<() => void> = [];
  return {
    calls,
    finishOne: () => open.shift()?.(),
    react: (_src: SourceMessageRef, state: ReactionState) => {
      calls.push(state);
      return new Promise<void>((resolve, reject) => open.push(() => (fail.includes(state) ? reject(new Error('refused')) : resolve())));
    },
  };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('turn reactions', () => {
  it('end() shows 👀 first when it was still held, then waits for it before the end state', async () => {
    const d = heldDelivery();
    const r = createTurnReactions(d, source);
    r.end('success');
    await settle();
    assert.deepEqual(d.calls, ['working'], 'the end state waits for 👀');
    d.finishOne();
    await settle();
    assert.deepEqual(d.calls, ['working', 'success']);
  });

  it('working() is asked for once however often it is called', async () => {
    const d = heldDelivery();
    const r = createTurnReactions(d, source);
    r.working();
    r.working();
    await settle();
    d.finishOne();
    r.end('failure');
    r.working();
    await settle();
    d.finishOne();
    await settle();
    assert.deepEqual(d.calls, ['working', 'failure']);
  });

  it('a call that fails does not stop the next one', async () => {
    const d = heldDelivery(['working']);
    const r = createTurnReactions(d, source);
    r.working();
    r.end('success');
    await settle();
    d.finishOne();
    await settle();
    assert.deepEqual(d.calls, ['working', 'success']);
  });

  it('a message without a source gets no reactions', async () => {
    const d = heldDelivery();
    const r = createTurnReactions(d, undefined);
    r.working();
    r.end('success');
    await settle();
    assert.deepEqual(d.calls, []);
  });
});
