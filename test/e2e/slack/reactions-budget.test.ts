/**
 * Reactions count against the workspace's budget like every other call: thirty mentions within a
 * few seconds (unpaced, that load drew nine reactions.add 429s) are all answered with zero 429s,
 * because delivery paces reactions.add / reactions.remove through the same limiters as messages.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_USER, visibleText } from '../../fakes/slack/index.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

describe('slack reactions are paced (real Bolt + bridge + agents)', () => {
  let rig: TurnRig;
  before(async () => {
    rig = await makeTurnRig({ slack: { streaming: 'edit' }, config: { maxConcurrent: 8, queueDepth: 5 } });
  });
  after(() => rig.close());

  it('30 mentions in a burst: every one answered, every reaction landed, zero 429s', async () => {
    const { fake } = rig;
    const before429 = fake.rateLimitedCount;
    const sent = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      fake.userMessage({ channel: `C0BURST${i % 5}`, user: i % 2 ? 'U0ANA' : 'U0BEN', text: `<@${BOT_USER}> hi ${i}` })));
    const finals = await Promise.all(sent.map(({ ts }, i) => rig.finalReply(`C0BURST${i % 5}`, ts, ts, { timeoutMs: 60_000 })));
    finals.forEach((parts, i) => assert.equal(visibleText(parts[0]), `echo: hi ${i}`));
    for (const [i, { ts }] of sent.entries()) {
      await fake.waitFor(() => fake.message(`C0BURST${i % 5}`, ts)!.reactions.has('white_check_mark'), `the success reaction on ${i}`);
      assert.deepEqual([...fake.message(`C0BURST${i % 5}`, ts)!.reactions], ['white_check_mark'], 'the eyes were removed');
    }
    const limited = fake.calls.filter((c) => c.status === 429).map((c) => c.method);
    assert.deepEqual(limited, [], 'no call answered 429');
    assert.equal(fake.rateLimitedCount - before429, 0);
  });
});
