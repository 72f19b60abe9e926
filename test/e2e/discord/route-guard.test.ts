/**
 * Routes hold everywhere, on Discord end to end (real discord.js against the fake, the real
 * bridge, a real agent): #general is routed to the agent with `allow_users: [alice]` and
 * `approvers_only: true`, and the same agent is the default profile, so DMs reach it too.
 * Through a DM Bob (not on the list) gets nothing and Alice's own Allow counts no more than in
 * #general. Then `approvals: approvers` bridge-wide: the author's click is refused, an
 * approver's is taken.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FakeMessage } from '../../fakes/discord/index.js';
import { AGENT_PROFILE, makeTurnRig, type TurnRig } from './turn-rig.js';

describe('discord: a route\'s restrictions hold in DMs (real discord.js + bridge + agent)', () => {
  let rig: TurnRig;

  before(async () => {
    rig = await makeTurnRig({ config: { routes: [], defaultProfile: AGENT_PROFILE } });
    const { alice, carol } = rig.fake.world.users;
    rig.config.approvers = [`discord:${carol.id}`];
    rig.config.routes.push({ platform: 'discord', channel: rig.fake.world.general.id, profile: AGENT_PROFILE, allowUsers: [alice.id], approversOnly: true });
  });
  after(async () => {
    await rig.close();
  });

  const promptIn = (channel: string, after: FakeMessage) => rig.fake.waitFor(
    () => rig.fake.botMessages(channel).find((m) => BigInt(m.id) > BigInt(after.id) && m.content.startsWith('🔐')), 15_000, 'the prompt');
  const button = (m: FakeMessage, label: string) => {
    const b = m.components.flatMap((r) => r.components).find((x) => x.label === label);
    assert.ok(b, `a "${label}" button`);
    return b.custom_id!;
  };
  const textOf = (parts: FakeMessage[]) => parts.map((p) => p.content).join('\n');

  it('Alice\'s own Allow of `rm -rf ~/proj` in her DM is refused as in #general; the prompt says an approver must decide; her Deny counts', async () => {
    const { fake } = rig;
    const { alice, carol } = fake.world.users;
    const sent = fake.dm(alice, 'ask rm -rf ~/proj');
    const prompt = await promptIn(sent.channel_id, sent);
    assert.match(prompt.content, new RegExp(`an approver must decide \\(<@${carol.id}>\\); <@${alice.id}> may only deny`));
    const allow = fake.click(prompt.id, button(prompt, 'Allow once'), alice);
    await fake.waitFor(() => allow.followUps.length > 0, 10_000, 'the refusal');
    assert.match(allow.followUps[0]!.content, /An approver must allow this.*You can still Deny/);
    assert.equal(allow.followUps[0]!.flags, 64, 'told privately');
    assert.ok(prompt.components.length > 0, 'still pending after her Allow');
    fake.click(prompt.id, button(prompt, 'Deny'), alice);
    const parts = await rig.finalReply(sent.channel_id, sent, 20_000, (t) => t.includes('denied'));
    assert.match(textOf(parts), /denied: Denied by @Alice/);
    assert.doesNotMatch(textOf(parts), /allowed: rm -rf/);
    await fake.waitFor(() => Object.keys(rig.bridge.stats().turnsByOutcome).length > 0 || undefined, 10_000, 'the turn counted');
  });

  it('Bob, not on the route\'s allow_users, cannot use the same agent in his DM', async () => {
    const { fake } = rig;
    const { bob } = fake.world.users;
    const runs = () => Object.values(rig.bridge.stats().turnsByOutcome).reduce((a, b) => a + b, 0);
    const ran = runs();
    const sent = fake.dm(bob, 'ask rm -rf ~/proj');
    const refusal = await fake.waitFor(() => fake.botMessages(sent.channel_id).find((m) => /not allowed to use this bot here/.test(m.content)), 15_000, 'the refusal');
    assert.ok(refusal.content.includes(`discord:${bob.id}`), refusal.content);
    assert.equal(runs(), ran, 'no agent ran for bob');
    assert.ok(!fake.botMessages(sent.channel_id).some((m) => m.content.startsWith('🔐')), 'no prompt');
  });

  it('approvals: approvers bridge-wide: the author\'s Allow is refused, an approver\'s is taken', async () => {
    const { fake } = rig;
    const { bob, carol } = fake.world.users;
    rig.config.approvals = 'approvers';
    rig.config.routes = [];
    try {
      const sent = fake.say(fake.world.general.id, bob, 'ask make deploy', { mention: true });
      await fake.waitFor(() => fake.channels.get(sent.id), 10_000, 'the thread');
      const prompt = await promptIn(sent.id, sent);
      assert.match(prompt.content, new RegExp(`an approver must decide \\(<@${carol.id}>\\); <@${bob.id}> may only deny`));
      const own = fake.click(prompt.id, button(prompt, 'Allow once'), bob);
      await fake.waitFor(() => own.followUps.length > 0, 10_000, 'the refusal');
      assert.match(own.followUps[0]!.content, /An approver must allow this/);
      assert.ok(prompt.components.length > 0, 'still pending after the author\'s Allow');
      fake.click(prompt.id, button(prompt, 'Allow once'), carol);
      const parts = await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('allowed'));
      assert.match(textOf(parts), /allowed: make deploy/);
    } finally {
      delete rig.config.approvals;
    }
  });
});
