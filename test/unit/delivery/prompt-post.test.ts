/**
 * Prompts through delivery (prompt-post.ts via LiveReply.postPrompt / Delivery.prompt): paced by
 * the conversation's post budget, retried through 429s and transient failures, given up at once
 * on a permanent refusal, rendered when the post goes out, updated at final priority, and a
 * prompt settled before it went out is never posted.
 */
import type { PermissionPromptView } from '../../../src/chat.js';
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createDelivery } from '../../../src/delivery/index.js';
import { TurnbridgeError } from '../../../src/errors.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { advance, conv, flush, settleOnClock, useFakeClock } from './helpers.js';

const view = (over: Partial<PermissionPromptView> = {}): PermissionPromptView => ({ promptId: 'p1', toolName: 'Bash', inputPreview: 'ls', state: 'pending', ...over });

describe('prompts through delivery', () => {
  it('four prompts at once share the post budget and survive 429s: all four posted, in order, none lost', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ budgets: { post: [{ key: 'post:C1', perMinute: 60 }] } });
    surface.failNext('postPrompt', 2, { retryAfterMs: 3000 });
    const delivery = createDelivery(surface);
    const posts = [1, 2, 3, 4].map((i) => delivery.prompt(conv, () => view({ promptId: `p${i}` })));
    const shown = await settleOnClock(t, posts.map((p) => p.shown));
    assert.ok(shown.every((s) => s.ok), JSON.stringify(shown));
    assert.deepEqual(surface.prompts().map((p) => p.view.promptId).sort(), ['p1', 'p2', 'p3', 'p4']);
    assert.equal(surface.callsOf('postPrompt').filter((c) => !c.ok).length, 2, 'two 429s, both retried');
    const at = surface.callsOf('postPrompt').filter((c) => c.ok).map((c) => c.at);
    for (let i = 1; i < at.length; i++) assert.ok(at[i]! - at[i - 1]! >= 1000, `paced by the post budget (${at.join(', ')})`);
    assert.equal(delivery.totals.rateLimitWaits, 2);
    await delivery.close();
  });

  it('the view is rendered when the post goes out (an expiry counts from then), and a permanent refusal gives up at once', async (t) => {
    useFakeClock(t, 0);
    const surface = createRecordingSurface({ budgets: { post: [{ key: 'post:C1', perMinute: 6 }] } });
    const delivery = createDelivery(surface);
    await settleOnClock(t, [delivery.say(conv, 'uses the budget')]);
    const p = delivery.prompt(conv, () => view({ expiresAt: Date.now() + 60_000 }));
    const shown = await settleOnClock(t, [p.shown]);
    assert.ok(shown[0]!.ok);
    const posted = surface.callsOf('postPrompt')[0]!;
    assert.ok(posted.at >= 10_000, 'waited for the budget');
    assert.equal(surface.prompts()[0]!.view.expiresAt, posted.at + 60_000);

    surface.failNext('postPrompt', 1, { error: new TurnbridgeError('TB_PLATFORM_ERROR', 'channel_not_found', { permanent: true }) });
    const refused = delivery.prompt(conv, () => view({ promptId: 'p2' }));
    const [r] = await settleOnClock(t, [refused.shown]);
    assert.deepEqual(r, { ok: false, why: 'permanent', detail: 'TB_PLATFORM_ERROR: channel_not_found' });
    assert.equal(surface.callsOf('postPrompt').length, 2, 'not retried');
    await delivery.close();
  });

  it('updates go out after the post, latest wins; a final state before the post went out cancels it', async (t) => {
    useFakeClock(t, 0);
    const surface = createRecordingSurface({ budgets: { post: [{ key: 'post:C1', perMinute: 6 }] } });
    const delivery = createDelivery(surface);
    const p = delivery.prompt(conv, () => view());
    const [s] = await settleOnClock(t, [p.shown]);
    assert.ok(s!.ok);
    surface.failNext('updatePrompt', 1, { message: 'HTTP 503' });
    const landed = await settleOnClock(t, [p.update(view({ state: 'allowed' }))]);
    assert.deepEqual(landed, [true]);
    assert.equal(surface.prompts()[0]!.view.state, 'allowed', 'the transient failure was retried');

    await settleOnClock(t, [delivery.say(conv, 'takes the post budget')]);
    const late = delivery.prompt(conv, () => view({ promptId: 'p2' }));
    await flush();
    const cancelled = late.update(view({ promptId: 'p2', state: 'expired' }));
    await advance(t, 20_000, 500);
    assert.deepEqual(await late.shown, { ok: false, why: 'cancelled', detail: 'the prompt was settled before it was posted' });
    assert.equal(await cancelled, true);
    assert.equal(surface.prompts().length, 1, 'the expired prompt was never posted');
    await delivery.close();
  });
});
