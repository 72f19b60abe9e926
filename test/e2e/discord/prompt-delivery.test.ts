/**
 * Permission prompts go through delivery on Discord (real discord.js, real bridge, real agents):
 * four turns answered inline in one channel ask at once, under the fake's per-channel message
 * limit (5 per 5 s, 429 past it). Every prompt is posted and decided by its author's click.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FakeMessage } from '../../fakes/discord/index.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

describe('discord: permission prompts through delivery', () => {
  let rig: TurnRig;
  let channel = '';

  before(async () => {
    rig = await makeTurnRig({
      config: { routes: [{ platform: 'discord', channel: 'set below', profile: 'set below', options: { reply: 'inline' } }] },
    });
    rig.config.routes[0]!.profile = rig.config.defaultProfile;
    channel = rig.fake.addTextChannel('approvals').id;
    rig.config.routes[0]!.channel = channel;
  });
  after(async () => rig.close());

  it('four prompts at once in one channel: all posted, each Allow decides its prompt, none auto-denied', async () => {
    const { fake } = rig;
    const { alice, bob, carol, dave } = fake.world.users;
    const users = [alice, bob, carol, dave];
    const rejectedBefore = fake.rateLimits.rejected.length;
    const sent = users.map((u, i) => fake.say(channel, u, `ask echo step-${i + 1}`, { mention: true }));
    const pending = (): FakeMessage[] => fake.botMessages(channel).filter((m) => m.content.startsWith('🔐'));
    const prompts = await fake.waitFor(() => (pending().length === 4 ? pending() : undefined), 30_000, 'four prompts');
    for (const p of prompts) {
      const author = users.find((u) => p.content.includes(`<@${u.id}> may decide`));
      assert.ok(author, 'the prompt names its author');
      const allow = p.components.flatMap((r) => r.components).find((b) => b.label === 'Allow once')!;
      fake.click(p.id, allow.custom_id!, author);
    }
    await fake.waitFor(() => {
      const text = fake.botMessages(channel).map((m) => m.content).join('\n');
      return [1, 2, 3, 4].every((i) => text.includes(`allowed: echo step-${i}`)) ? true : undefined;
    }, 30_000, 'four allowed answers');
    const decided = await fake.waitFor(() => {
      const done = prompts.map((p) => fake.botMessages(channel).find((m) => m.id === p.id)!).filter((m) => /^✅ \*\*Allowed once\*\* by @/u.test(m.content));
      return done.length === 4 ? done : undefined;
    }, 20_000, 'four prompts decided by their clicks');
    assert.equal(decided.length, 4);
    const all = fake.botMessages(channel).map((m) => m.content).join('\n');
    assert.doesNotMatch(all, /could not be shown|timed out|⌛/u, 'none auto-denied');
    console.log(`discord 5 posts/5 s per channel: 429s answered by the fake: ${fake.rateLimits.rejected.length - rejectedBefore}; prompts posted and decided: 4 of 4`);
    void sent;
  });
});
