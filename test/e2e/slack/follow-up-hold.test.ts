/**
 * A follow-up without a mention that reaches the bridge before its thread's root is accepted is
 * held until the root is decided, not dropped: Slack answers users.info for the root's author
 * 1.5 s late (so the root's turn, and with it the thread's ownership, is recorded only then), and
 * the follow-up comes 0.3 s after the mention. Both run, the root first. Real Bolt, real bridge,
 * real agents. The same hold serves replicas: the root's claim and the thread's ownership are in
 * the shared state.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_USER, visibleText } from '../../fakes/slack/index.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

describe('slack: a follow-up before its thread is accepted', () => {
  let rig: TurnRig;
  before(async () => {
    rig = await makeTurnRig({ slack: { streaming: 'edit' } });
  });
  after(() => rig.close());

  it('waits for the root and runs after it', async () => {
    const { fake } = rig;
    fake.slow('users.info', 1500, 2);
    const root = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> first` });
    // 0.3 s after the mention: the scenario (a person typing on), not a wait for anything.
    await new Promise((r) => setTimeout(r, 300));
    const follow = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', threadTs: root.ts, text: 'second' });
    await rig.finalReply('C0GEN', root.ts, root.ts);
    await fake.waitFor(() => fake.message('C0GEN', follow.ts)?.reactions.has('white_check_mark'), 'the follow-up answered', 30_000);
    const texts = rig.replies('C0GEN', root.ts).map((m) => visibleText(m).trim());
    assert.deepEqual(texts, ['echo: first', 'echo: second'], 'both ran, the root first');
  });
});
