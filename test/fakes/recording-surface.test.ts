import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRecordingSurface } from './recording-surface.js';
import { isTurnbridgeError } from '../../src/errors.js';

const conv = { space: 'T', channel: 'C', thread: '1' };

describe('recording surface', () => {
  test('keeps what the user sees and records every call', async () => {
    let t = 0;
    const s = createRecordingSurface({ platform: 'x', maxTextChars: 10, now: () => ++t });
    assert.equal(s.capabilities.maxTextChars, 10);
    const ref = await s.post(conv, { text: 'a', status: 'working…' });
    await s.edit(ref, { text: 'ab' });
    assert.equal(s.visibleText(ref), 'ab');
    assert.deepEqual(s.message(ref).history.map((c) => c.text), ['a', 'ab']);
    assert.deepEqual(s.messagesIn(conv).map((m) => m.ref.id), [ref.id]);
    assert.deepEqual(s.messagesIn({ ...conv, thread: '2' }), []);
    assert.deepEqual(s.calls.map((c) => [c.op, c.at, c.ok, c.ref?.id]), [['post', 1, true, ref.id], ['edit', 3, true, ref.id]]);
    const p = await s.postPrompt(conv, { promptId: 'p1', toolName: 'Bash', inputPreview: 'ls', state: 'pending' });
    await s.updatePrompt(p, { promptId: 'p1', toolName: 'Bash', inputPreview: 'ls', state: 'allowed', decidedBy: { id: 'U1' } });
    assert.equal(s.prompts()[0]!.view.state, 'allowed');
    await s.react!({ id: 'src', conversation: conv }, 'success');
    assert.deepEqual(s.reactions.map((r) => r.state), ['success']);
  });

  test('injects 429s and other failures for the next N calls of an op', async () => {
    const s = createRecordingSurface({ failWith: { post: [{ message: 'down' }] } });
    await assert.rejects(s.post(conv, { text: 'x' }), (e) => isTurnbridgeError(e, 'TB_PLATFORM_ERROR'));
    const ref = await s.post(conv, { text: 'x' });
    s.failNext('edit', 2, { retryAfterMs: 1500 });
    for (let i = 0; i < 2; i++) {
      await assert.rejects(s.edit(ref, { text: 'y' }), (e) => isTurnbridgeError(e, 'TB_RATE_LIMITED') && (e as unknown as { retryAfterMs: number }).retryAfterMs === 1500);
    }
    await s.edit(ref, { text: 'y' });
    assert.equal(s.visibleText(ref), 'y');
    assert.deepEqual(s.callsOf('edit').map((c) => c.ok), [false, false, true]);
    assert.equal(s.messages().length, 1);
  });

  test('budgets from a table or a function; in-flight tracking', async () => {
    const s = createRecordingSurface({ budgets: { edit: (c) => [{ key: `e:${c.space}`, perMinute: 50 }] } });
    assert.deepEqual(s.budgets('edit', conv), [{ key: 'e:T', perMinute: 50 }]);
    assert.deepEqual(s.budgets('post', conv), []);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = createRecordingSurface({ delay: () => gate });
    const posting = held.post(conv, { text: 'a' });
    assert.equal(held.inFlight, 1);
    release();
    await posting;
    assert.equal(held.inFlight, 0);
    assert.equal(held.maxInFlightPerMessage, 1);
  });
});
