/**
 * A conversation's activity (conversation-activity.ts): counted per conversation, so the next turn
 * starting before the previous one ended never ends up shown idle; waiting only while every
 * running turn waits; `new` while a turn runs closes once it ends; changes go out in order.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createConversationActivities } from '../../../src/bridge/turns/conversation-activity.js';
import type { Conversation } from '../../../src/chat.js';
import type { ActivityAbout, ConversationActivity } from '../../../src/delivery/surface.js';

const conv: Conversation = { space: 'T1', channel: 'C1', thread: '1.1' };
const about = (text: string): ActivityAbout => ({ text, author: { id: 'U1' } });

/** A delivery whose calls stay open until the test lets them finish (order is what is checked). */
function heldDelivery() {
  const calls: Array<{ activity: ConversationActivity; about?: ActivityAbout }> = [];
  const open: Array<() => void> = [];
  return {
    calls,
    shown: () => calls.map((c) => c.activity),
    finishAll: async () => {
      await settle();
      while (open.length) {
        open.shift()!();
        await settle();
      }
    },
    activity: (_c: Conversation, activity: ConversationActivity, a?: ActivityAbout) => {
      calls.push({ activity, ...(a ? { about: a } : {}) });
      return new Promise<void>((resolve) => open.push(resolve));
    },
  };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('conversation activity', () => {
  it('a turn: working (with its message), waiting on a prompt, working again, idle; one call at a time', async () => {
    const d = heldDelivery();
    const a = createConversationActivities();
    const t = a.started('k', conv, d, about('fix the build'));
    t.waiting();
    t.answered();
    t.ended();
    await settle();
    assert.deepEqual(d.shown(), ['working'], 'the next change waits for the one in flight');
    await d.finishAll();
    assert.deepEqual(d.shown(), ['working', 'waiting', 'working', 'idle']);
    assert.equal(d.calls[0]!.about!.text, 'fix the build');
    assert.equal(d.calls[2]!.about!.text, 'fix the build', 'working again carries the message too');
  });

  it('the next turn starting before the previous one ended: never shown idle in between', async () => {
    const d = heldDelivery();
    const a = createConversationActivities();
    const first = a.started('k', conv, d, about('one'));
    const second = a.started('k', conv, d, about('two'));
    first.ended();
    await d.finishAll();
    assert.deepEqual(d.shown(), ['working'], 'still working: the second turn runs');
    second.ended();
    await d.finishAll();
    assert.deepEqual(d.shown(), ['working', 'idle']);
  });

  it('waiting only while every running turn waits; nested prompts of one turn count once; ended() twice is once', async () => {
    const d = heldDelivery();
    const a = createConversationActivities();
    const t1 = a.started('k', conv, d, about('one'));
    const t2 = a.started('k', conv, d, about('two'));
    t1.waiting();
    t1.waiting();
    await d.finishAll();
    assert.deepEqual(d.shown(), ['working'], 'the other turn still works');
    t2.waiting();
    await d.finishAll();
    assert.deepEqual(d.shown(), ['working', 'waiting']);
    t1.answered();
    await d.finishAll();
    assert.deepEqual(d.shown(), ['working', 'waiting'], 't1 still has a prompt up');
    t1.answered();
    await d.finishAll();
    assert.deepEqual(d.shown(), ['working', 'waiting', 'working']);
    t1.answered(); // more answers than prompts: ignored
    t2.ended();
    t2.ended();
    t1.ended();
    await d.finishAll();
    assert.deepEqual(d.shown(), ['working', 'waiting', 'working', 'idle']);
  });

  it('`new` with nothing running closes at once (even when already idle); while a turn runs, once it ends', async () => {
    const d = heldDelivery();
    const a = createConversationActivities();
    a.closed('k', conv, d);
    await d.finishAll();
    assert.deepEqual(d.shown(), ['closed']);
    const t = a.started('k', conv, d, about('one'));
    a.closed('k', conv, d);
    await d.finishAll();
    assert.deepEqual(d.shown(), ['closed', 'working'], 'not closed under a running turn');
    t.ended();
    await d.finishAll();
    assert.deepEqual(d.shown(), ['closed', 'working', 'closed'], 'closed, not idle, when it ends');
    const next = a.started('k', conv, d, about('two'));
    next.ended();
    await d.finishAll();
    assert.deepEqual(d.shown().slice(3), ['working', 'idle'], 'the close was used up');
  });

  it('conversations are apart', async () => {
    const d = heldDelivery();
    const a = createConversationActivities();
    const t1 = a.started('k1', conv, d, about('one'));
    a.started('k2', { ...conv, thread: '2.2' }, d, about('two'));
    t1.ended();
    await d.finishAll();
    assert.deepEqual(d.shown(), ['working', 'working', 'idle']);
  });
});
