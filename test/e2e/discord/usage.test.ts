/**
 * The usage line end to end on Discord: the agent's result.usage becomes the last subtext line
 * (`-# `) of the finished reply; show_usage: false on a route hides it there.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AGENT_PROFILE, makeTurnRig, type TurnRig } from './turn-rig.js';

describe('discord usage line (real discord.js + bridge + agent)', () => {
  let rig: TurnRig;
  let quiet = '';
  before(async () => {
    rig = await makeTurnRig({ config: { routes: [{ platform: 'discord', channel: 'set below', profile: AGENT_PROFILE, showUsage: false, options: { reply: 'inline' } }] } });
    quiet = rig.fake.addTextChannel('quiet').id;
    rig.config.routes[0]!.channel = quiet;
  });
  after(() => rig.close());

  it('a finished reply ends with the tokens in and out and the cost, muted, under the answer', async () => {
    const { fake } = rig;
    const sent = fake.dm(fake.world.users.alice, 'usage 12345 678 0.0123 50');
    const parts = await rig.finalReply(sent.channel_id, sent);
    const lines = parts.at(-1)!.content.split('\n');
    assert.equal(lines.at(-1), '-# 12,345 tokens in · 678 out · $0.0123');
    assert.match(lines[0]!, /^counted/);
    for (const p of parts.slice(0, -1)) assert.ok(!p.content.includes('tokens'));
  });

  it('no cost reported: tokens only; show_usage: false on the route: no line', async () => {
    const { fake } = rig;
    const a = fake.dm(fake.world.users.alice, 'usage 10 2');
    const [ra] = (await rig.finalReply(a.channel_id, a)).slice(-1);
    assert.equal(ra!.content, 'counted\n-# 10 tokens in · 2 out');
    const b = fake.say(quiet, fake.world.users.alice, 'usage 10 2 0.5', { mention: true });
    const [rb] = (await rig.finalReply(quiet, b)).slice(-1);
    assert.equal(rb!.content, 'counted');
  });
});
