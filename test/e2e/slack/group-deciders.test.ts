/**
 * Slack user groups in TURNBRIDGE_APPROVERS, TURNBRIDGE_ADMINS and a route's approvers count for
 * clicks, forms and Stop (a Slack click carries no group membership: the platform looks it up,
 * cached, the way it does for messages). Real Bolt against the fake, the real bridge and agent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_USER, buttons, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { openSecurity } from '../../fixtures/config-defaults.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

const mention = (text: string): string => `<@${BOT_USER}> ${text}`;
const PROFILE = `${process.cwd()}/test/fixtures/slack-agents/profile.yaml`;

describe('slack user groups as approvers and admins (real Bolt + bridge + agent)', () => {
  let rig: TurnRig;

  before(async () => {
    rig = await makeTurnRig({
      slack: { streaming: 'edit' },
      fake: {
        users: { U0ANA: 'ana', U0BEN: 'ben', U0CAR: 'car', U0DAN: 'dan', U0EVE: 'eve' },
        usergroups: { S0APPR: ['U0CAR'], S0ADM: ['U0DAN'], S0RTE: ['U0EVE'] },
      },
      config: {
        approvers: ['slack:S0APPR'],
        access: { ...openSecurity().access, admins: ['slack:S0ADM'] },
        routes: [{ platform: 'slack', channel: 'C0RTE', profile: PROFILE, approvers: ['S0RTE'] }],
      },
    });
  });
  after(async () => {
    await rig.close();
  });

  const click = (user: string, name: string, actionId: string, m: FakeMessage) => {
    const b = buttons(m).find((x) => x.action_id === actionId);
    assert.ok(b, `button ${actionId} (have ${buttons(m).map((x) => x.action_id).join(', ')})`);
    return rig.fake.click({ user, userName: name, actionId, value: b.value, channel: m.channel, messageTs: m.ts });
  };
  const refusedFor = (user: string) => rig.fake.waitFor(() => rig.fake.ephemerals.find((e) => e.user === user && /^Only @ana or an approver/.test(e.text)), `${user} refused`);

  it('a member of a TURNBRIDGE_APPROVERS user group allows; someone outside it is refused', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('ask make deploy') });
    const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt');
    await click('U0BEN', 'ben', 'tb_allow', prompt);
    await refusedFor('U0BEN');
    await click('U0CAR', 'car', 'tb_allow', prompt);
    const parts = await rig.finalReply('C0GEN', ts, ts);
    assert.match(parts.map(visibleText).join(''), /allowed: make deploy/);
  });

  it('a member of a TURNBRIDGE_ADMINS user group denies with a reason (modal) and may Stop any turn', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('ask make deploy') });
    const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt');
    const opened = fake.views.length;
    await click('U0DAN', 'dan', 'tb_deny_reason', prompt);
    const modal = await fake.waitFor(() => fake.views[opened], 'the reason modal');
    assert.equal(await fake.submitView({ user: 'U0DAN', userName: 'dan', value: 'not today', view: modal.view }), undefined);
    const parts = await rig.finalReply('C0GEN', ts, ts);
    assert.match(parts.map(visibleText).join(''), /not today/);

    const slow = await fake.userMessage({ channel: 'C0GEN', user: 'U0BEN', text: mention('slow') });
    const control = await fake.waitFor(() => rig.replies('C0GEN', slow.ts).find((m) => buttons(m).some((b) => b.action_id === 'tb_stop')), 'the Stop button');
    await click('U0DAN', 'dan', 'tb_stop', control);
    const stopped = await rig.finalReply('C0GEN', slow.ts, slow.ts);
    assert.match(stopped.map(visibleText).join(''), /stopped by @dan/);
  });

  it("a member of a user group in a route's approvers (bare S…) allows on that route", async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0RTE', user: 'U0ANA', text: mention('ask make deploy') });
    const prompt = await fake.waitFor(() => rig.prompts('C0RTE', ts)[0], 'the prompt');
    await click('U0EVE', 'eve', 'tb_allow', prompt);
    const parts = await rig.finalReply('C0RTE', ts, ts);
    assert.match(parts.map(visibleText).join(''), /allowed: make deploy/);
  });
});
