/**
 * Routes hold everywhere, on Slack end to end (real Bolt against the fake, the real bridge, a
 * real agent): the channel C0OPS is routed to the agent with `allow_users: [U0ANA]` and
 * `approvers_only: true`, and the same agent is the default profile, so DMs reach it too.
 * Through a DM Ben (not on the list) gets nothing and Ana's own Allow counts no more than in
 * C0OPS. Then `approvals: approvers` bridge-wide: the author's click is refused, an approver's
 * is taken.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_USER, buttons, contextLines, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { AGENT_PROFILE, makeTurnRig, type TurnRig } from './turn-rig.js';

const mention = (text: string): string => `<@${BOT_USER}> ${text}`;

describe('slack: a route\'s restrictions hold in DMs and elsewhere (real Bolt + bridge + agent)', () => {
  let rig: TurnRig;

  before(async () => {
    rig = await makeTurnRig({
      slack: { streaming: 'edit' },
      fake: { users: { U0ANA: 'ana', U0BEN: 'ben', U0EVE: 'eve', U0LEAD: 'lead' } },
      config: {
        defaultProfile: AGENT_PROFILE,
        approvers: ['slack:U0LEAD'],
        routes: [{ platform: 'slack', channel: 'C0OPS', profile: AGENT_PROFILE, allowUsers: ['U0ANA'], approversOnly: true }],
      },
    });
  });
  after(async () => {
    await rig.close();
  });

  const click = (user: string, actionId: string, prompt: FakeMessage) => {
    const value = buttons(prompt).find((b) => b.action_id === actionId)?.value;
    assert.ok(value, `a ${actionId} button`);
    return rig.fake.click({ user, userName: user, actionId, value, channel: prompt.channel, messageTs: prompt.ts });
  };
  const told = (user: string, re: RegExp, since: number) =>
    rig.fake.waitFor(() => rig.fake.ephemerals.slice(since).find((e) => e.user === user && re.test(e.text)), `${user} told ${re}`);

  it('Ana\'s own Allow of `rm -rf ~/proj` in her DM is refused as in C0OPS; the prompt says an approver must decide; her Deny counts', async () => {
    const { fake } = rig;
    const sent = await fake.userMessage({ channel: 'D0ANA', user: 'U0ANA', text: 'ask rm -rf ~/proj' });
    const prompt = await fake.waitFor(() => rig.prompts('D0ANA', '').find((m) => Number(m.ts) > Number(sent.ts)), 'the prompt in the DM');
    assert.match(contextLines(prompt).join(' '), /an approver must decide \(<@U0LEAD>\); <@U0ANA> may only deny/);
    const before = fake.ephemerals.length;
    await click('U0ANA', 'tb_allow', prompt);
    await told('U0ANA', /An approver must allow this.*You can still Deny/, before);
    await click('U0ANA', 'tb_allow_thread', prompt);
    await told('U0ANA', /An approver must allow this/, before + 1);
    assert.ok(buttons(fake.message('D0ANA', prompt.ts)!).length > 0, 'still pending after her Allow');
    await click('U0ANA', 'tb_deny', prompt);
    const parts = await rig.finalReply('D0ANA', '', sent.ts);
    const text = parts.map(visibleText).join('\n');
    assert.match(text, /denied: Denied by @/);
    assert.doesNotMatch(text, /allowed: rm -rf/);
    await fake.waitFor(() => Object.keys(rig.bridge.stats().turnsByOutcome).length > 0 || undefined, 'the turn counted');
  });

  it('Ben, not on the route\'s allow_users, cannot use the same agent in his DM; nor Eve in a channel no route names', async () => {
    const { fake } = rig;
    const runs = () => Object.values(rig.bridge.stats().turnsByOutcome).reduce((a, b) => a + b, 0);
    const ran = runs();
    const dm = await fake.userMessage({ channel: 'D0BEN', user: 'U0BEN', text: 'ask rm -rf ~/proj' });
    const refusal = await fake.waitFor(() => fake.botMessages('D0BEN', '').find((m) => Number(m.ts) > Number(dm.ts)), 'the refusal');
    assert.match(visibleText(refusal) || refusal.text, /not allowed to use this bot here.*slack:U0BEN.*allow_users/);
    const ch = await fake.userMessage({ channel: 'C0GEN', user: 'U0EVE', text: mention('ask rm -rf ~/proj') });
    const inChannel = () => [...fake.ephemerals.filter((e) => e.user === 'U0EVE').map((e) => e.text), ...fake.botMessages('C0GEN', ch.ts).map((m) => visibleText(m) || m.text)];
    const said = await fake.waitFor(() => inChannel().find((t) => /not allowed to use this bot here/.test(t)), 'the refusal in C0GEN');
    assert.match(said, /slack:U0EVE/);
    assert.equal(runs(), ran, 'no agent ran for ben or eve');
    assert.equal(rig.prompts('D0BEN', '').length, 0);
  });

  it('approvals: approvers bridge-wide: in a channel with no route the author\'s Allow is refused, an approver\'s is taken', async () => {
    const { fake } = rig;
    rig.config.approvals = 'approvers';
    rig.config.routes = [];
    try {
      const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0BEN', text: mention('ask make deploy') });
      const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt');
      assert.match(contextLines(prompt).join(' '), /an approver must decide \(<@U0LEAD>\); <@U0BEN> may only deny/);
      const before = fake.ephemerals.length;
      await click('U0BEN', 'tb_allow', prompt);
      await told('U0BEN', /An approver must allow this/, before);
      assert.ok(buttons(fake.message('C0GEN', prompt.ts)!).length > 0, 'still pending after the author\'s Allow');
      await click('U0LEAD', 'tb_allow', prompt);
      const parts = await rig.finalReply('C0GEN', ts, ts);
      assert.match(parts.map(visibleText).join(''), /allowed: make deploy/);
      assert.match(contextLines(await rig.decidedPrompt('C0GEN', prompt.ts)).join(' '), /Allowed once by <@U0LEAD>/);
    } finally {
      delete rig.config.approvals;
    }
  });
});
