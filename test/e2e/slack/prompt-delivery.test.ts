/**
 * Permission prompts go through delivery on Slack (real Bolt app, real bridge, real agents): four
 * prompts at once in one channel while the fake enforces chat.postMessage per channel and answers
 * 429 + Retry-After past it. Every prompt is posted (429s are retried, paced by the same limiters
 * as the replies), every Allow click decides its prompt, and none is auto-denied.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_USER, buttons, contextLines, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { SLACK_BUDGETS, type MethodBudget } from '../../fakes/slack/rate-limits.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

const mention = (text: string): string => `<@${BOT_USER}> ${text}`;

/** Four turns in four threads of one channel, each asking once; ana allows each prompt. */
async function fourPrompts(rig: TurnRig): Promise<{ limited: number; prompts: FakeMessage[] }> {
  const { fake } = rig;
  const threads = await Promise.all([1, 2, 3, 4].map((i) => fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention(`ask echo step-${i}`) })));
  const prompts = await fake.waitFor(() => {
    const all = threads.map(({ ts }) => rig.prompts('C0GEN', ts)[0]);
    return all.every(Boolean) ? (all as FakeMessage[]) : undefined;
  }, 'four prompts', 30_000);
  for (const p of prompts) {
    // six since the thread rules added "Allow for everyone in this thread" (tb_allow_thread_all)
    assert.deepEqual(buttons(p).map((b) => b.action_id), ['tb_allow', 'tb_allow_thread', 'tb_allow_thread_all', 'tb_edit', 'tb_deny', 'tb_deny_reason'], 'pending, with its six choices');
    const allow = buttons(p).find((b) => b.action_id === 'tb_allow')!;
    await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_allow', value: allow.value, channel: p.channel, messageTs: p.ts });
  }
  for (const [i, { ts }] of threads.entries()) {
    const parts = await rig.finalReply('C0GEN', ts, ts);
    const text = parts.map(visibleText).join('\n');
    assert.match(text, new RegExp(`allowed: echo step-${i + 1}`), 'the agent was answered allow');
    assert.doesNotMatch(text, /could not be shown|denied/);
    assert.equal(rig.prompts('C0GEN', ts).length, 1);
    const decided = await rig.decidedPrompt('C0GEN', prompts[i]!.ts);
    assert.match(contextLines(decided).join(' '), /Allowed once by <@U0ANA>/, 'decided by the click, not timed out or expired');
  }
  return { limited: fake.callsTo('chat.postMessage').filter((c) => c.status === 429).length, prompts };
}

const withPostBudget = (post: MethodBudget): Record<string, MethodBudget> => ({ ...SLACK_BUDGETS, 'chat.postMessage': post });

describe('slack: permission prompts through delivery', () => {
  const rigs: TurnRig[] = [];
  after(async () => {
    for (const r of rigs) await r.close();
  });

  it("four prompts at once in one channel under Slack's 1 post/s per channel: all posted, each Allow decides its prompt", async () => {
    const rig = await makeTurnRig({ slack: { streaming: 'edit' }, fake: { budgets: withPostBudget({ limit: 1, windowMs: 1000, per: 'channel' }) } });
    rigs.push(rig);
    const { limited } = await fourPrompts(rig);
    console.log(`slack 1/s per channel: chat.postMessage 429s answered by the fake: ${limited}; prompts posted and decided: 4 of 4`);
  });

  it('the same when Slack is stricter than the bridge paces (every 429 retried): none lost, none auto-denied', async () => {
    // one post per 2 s window per channel: the bridge's own pacing (about 1/s) runs into 429s for sure
    const rig = await makeTurnRig({ slack: { streaming: 'edit' }, fake: { budgets: withPostBudget({ limit: 1, windowMs: 2000, per: 'channel' }) } });
    rigs.push(rig);
    const { limited } = await fourPrompts(rig);
    assert.ok(limited > 0, 'the fake answered 429s');
    console.log(`slack 1 post/2 s per channel: chat.postMessage 429s answered by the fake: ${limited}; prompts posted and decided: 4 of 4`);
  });
});
