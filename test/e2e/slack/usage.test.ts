/**
 * The usage line end to end on Slack: the agent's result.usage becomes a muted context line under
 * the finished reply (post + chat.update, and on a native stream's stop); show_usage: false on a
 * route hides it there.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_USER, contextLines, visibleText } from '../../fakes/slack/index.js';
import { AGENT_PROFILE, makeTurnRig, type TurnRig } from './turn-rig.js';

const mention = (text: string): string => `<@${BOT_USER}> ${text}`;

for (const streaming of ['edit', 'native'] as const) {
  describe(`slack usage line (streaming: ${streaming})`, () => {
    let rig: TurnRig;
    before(async () => {
      rig = await makeTurnRig({
        slack: { streaming },
        config: { routes: [{ platform: 'slack', channel: 'C0DEMO', profile: AGENT_PROFILE, showUsage: false }] },
      });
    });
    after(() => rig.close());

    it('a finished reply ends with the tokens in and out and the cost, as its last context line', async () => {
      const { fake } = rig;
      // streamed for a second, so that native mode starts a stream (a shorter answer is written with edits)
      const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention(`usage 12345 678 0.0123 ${streaming === 'native' ? 100 : ''}`.trim()) });
      const parts = await rig.finalReply('C0GEN', ts, ts);
      const last = parts.at(-1)!;
      if (streaming === 'native') assert.ok(fake.callsTo('chat.stopStream').length > 0, 'the reply was streamed');
      assert.match(visibleText(last), /counted/);
      assert.equal(contextLines(last).at(-1), '12,345 tokens in · 678 out · $0.0123');
      assert.ok(!visibleText(last).includes('tokens'), 'the line is not part of the answer');
      for (const p of parts.slice(0, -1)) assert.ok(!contextLines(p).some((l) => l.includes('tokens')));
    });

    it('no cost reported: tokens only; show_usage: false on the route: no line', async () => {
      const { fake } = rig;
      const a = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('usage 10 2') });
      const [ra] = (await rig.finalReply('C0GEN', a.ts, a.ts)).slice(-1);
      assert.equal(contextLines(ra).at(-1), '10 tokens in · 2 out');
      const b = await fake.userMessage({ channel: 'C0DEMO', user: 'U0ANA', text: mention('usage 10 2 0.5') });
      const [rb] = (await rig.finalReply('C0DEMO', b.ts, b.ts)).slice(-1);
      assert.match(visibleText(rb), /counted/);
      assert.ok(!contextLines(rb).some((l) => l.includes('tokens')), contextLines(rb).join(' | '));
    });
  });
}
