/**
 * Permission prompts go through delivery on Slack: four prompts at once in one channel, with
 * Slack's chat.postMessage budget enforced by the fake (about one per second per channel, the
 * fake answering 429 + Retry-After past it). Every prompt is posted (429s are retried, paced by
 * the same limiters as the replies), every Allow click decides its prompt, none is auto-denied.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_USER, buttons, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { SLACK_BUDGETS } from '../../fakes/slack/rate-limits.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

const mention = (text: string): string => `<@${BOT_USER}> ${text}`;

describe('slack: permission prompts through delivery', () => {
  let rig: TurnRig;
  before(async () => {
    rig = await makeTurnRig({ slack: { streaming: 'edit' }, fake: { budgets: { ...SLACK_BUDGETS, 'chat.postMessage': { limit: 1, windowMs: 1000, per: 'channel' } } } });
  });
  after(async () => rig.close());

  it('four prompts at once in one channel: all posted, each Allow decides its prompt, none auto-denied', async () => {
    const { fake } = rig;
    const threads = await Promise.all([1, 2, 3, 4].map((i) => fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention(`ask echo step-${i}`) })));
    const prompts = await fake.waitFor(() => {
      const all = threads.map(({ ts }) => rig.prompts('C0GEN', ts)[0]);
      return all.every(Boolean) ? (all as FakeMessage[]) : undefined;
    }, 'four prompts', 30_000);
    const limited = fake.callsTo('chat.postMessage').filter((c) => c.status === 429).length;
    console.log('chat.postMessage 429s', limited, 'total', fake.rateLimitedCount);
    for (const p of prompts) {
      const allow = buttons(p).find((b) => b.action_id === 'tb_allow')!;
      await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_allow', value: allow.value, channel: p.channel, messageTs: p.ts });
    }
    for (const [i, { ts }] of threads.entries()) {
      const parts = await rig.finalReply('C0GEN', ts, ts);
      assert.match(parts.map(visibleText).join(''), new RegExp(`allowed: echo step-${i + 1}`));
    }
  });
});
