/**
 * The final edit carries the final state once the agent is done: with Slack's chat.update budget
 * (Tier 3, shared by the workspace) held busy by three other streaming replies, a Deny's answer
 * ("denied: …", the result, then the agent takes 1.5 s to exit, as a CLI tearing down does)
 * never shows as complete text with ":hourglass_flowing_sand: working…" under it: every version
 * of the reply message that holds the answer is the final one. Real Bolt, real bridge, real agents.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_USER, buttons, type FakeMessage } from '../../fakes/slack/index.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

const ROUNDS = 3;
const hourglass = (h: FakeMessage['history'][number]): boolean =>
  h.blocks.some((b) => b.type === 'context' && JSON.stringify(b.elements ?? []).includes(':hourglass_flowing_sand:'));
const textOf = (h: FakeMessage['history'][number]): string => h.blocks.filter((b) => b.type === 'markdown').map((b) => String(b.text)).join('') || h.text;

describe('slack: the final edit after a Deny under a busy edit budget', () => {
  let rig: TurnRig;
  before(async () => {
    rig = await makeTurnRig({ timeScale: 20, slack: { streaming: 'edit' }, config: { limits: { runningPerUser: 10, waitingPerUser: 10, waiting: 100, promptWaits: 10, outboxFiles: 10, outboxBytes: 20 * 1048576 } } });
  });
  after(() => rig.close());

  it(`in ${ROUNDS} rounds the answer's last text lands with the final state`, async () => {
    const { fake } = rig;
    // Two replies that want an edit every interval keep the workspace's chat.update budget busy.
    const busy = await Promise.all(['C0BUSY1', 'C0BUSY2', 'C0BUSY3'].map((channel) => fake.userMessage({ channel, user: 'U0BEN', text: `<@${BOT_USER}> slow` })));
    await fake.waitFor(() => busy.every((b, i) => fake.botMessages(`C0BUSY${i + 1}`, b.ts).some((m) => m.text.includes('tick-'))), 'the busy replies stream', 30_000);
    const problems: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> asklinger 1500 rm round-${round}` });
      const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt', 30_000);
      const deny = buttons(prompt).find((b) => b.action_id === 'tb_deny')!;
      // A person reads the prompt before deciding: five more edits of the busy replies go by
      // (the thread's post budget is free again by then, as it is when someone takes a moment).
      const seen = fake.calls.filter((c) => c.method === 'chat.update' && c.ok).length;
      await fake.waitFor(() => fake.calls.filter((c) => c.method === 'chat.update' && c.ok).length >= seen + 5, 'a moment of reading', 30_000);
      await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_deny', value: deny.value, channel: 'C0GEN', messageTs: prompt.ts });
      const parts = await rig.finalReply('C0GEN', ts, ts, { timeoutMs: 60_000 });
      const answered = parts.filter((m) => m.history.some((h) => textOf(h).includes('denied:')));
      assert.ok(answered.length > 0, `round ${round}: the answer shows: ${parts.map((m) => m.text).join(' | ')}`);
      for (const m of answered) {
        for (const [i, h] of m.history.entries()) {
          if (textOf(h).includes('denied:') && hourglass(h)) problems.push(`round ${round}: version ${i + 1} of ${m.history.length} shows the answer under "working…": ${JSON.stringify(textOf(h))}`);
        }
      }
    }
    assert.deepEqual(problems, [], problems.join('\n'));
  });
});
