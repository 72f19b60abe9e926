/**
 * Secure by default on Discord, end to end: fake Discord -> real discord.js -> the real bridge
 * with access closed. A stranger's DM gets the way-in reply and runs nothing; a grant lets them
 * in on their next message; a server role on the access list works in the server but cannot be
 * borrowed in a DM to get past a route scoped to that server.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openGrants } from '../../../src/state/index.js';
import { silentLogger } from '../../../src/log.js';
import { WAY_IN_SENT_BY_DM } from '../../../src/bridge/access/way-in.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

describe('discord access (real discord.js + bridge, access closed)', () => {
  let rig: TurnRig;
  let role = '';
  /** Every bot message, in any channel or thread. */
  const botSaid = () => [...rig.fake.messages.values()].filter((m) => m.author.id === rig.fake.world.bot.id);

  before(async () => {
    rig = await makeTurnRig({ config: { routes: [] } });
    role = rig.fake.world.guild.roles[1]!.id;
    // Global list: everyone with the server role (carol).
    rig.config.access = { mode: 'closed', allowUsers: [`discord:role:${role}`], admins: [], dms: true };
  });
  after(async () => {
    await rig.close();
  });

  it('a stranger DMs: the way-in reply naming `turnbridge allow discord:<id>`, no agent; a grant lets them in', async () => {
    const { fake } = rig;
    const { dave } = fake.world.users;
    const sent = fake.dm(dave, 'hello');
    const refusal = await fake.waitFor(() => fake.botMessages(sent.channel_id).find((m) => /access list/.test(m.content)), 15_000, 'the way-in reply');
    assert.ok(refusal.content.includes(`turnbridge allow discord:${dave.id}`), refusal.content);
    assert.equal(Object.values(rig.bridge.stats().turnsByOutcome).reduce((a, b) => a + b, 0), 0, 'no agent ran');
    // What `turnbridge allow discord:<dave>` does, from another store handle (another process).
    const cli = openGrants(rig.config, silentLogger);
    assert.equal(await cli.add(`discord:${dave.id}`, { platform: 'cli', id: 'test' }), 'added');
    await cli.close();
    const next = fake.dm(dave, 'hello again');
    const [reply] = await rig.finalReply(next.channel_id, next);
    assert.equal(reply!.content, 'echo: hello again');
  });

  it('a stranger who mentions the bot in a server gets the pairing code in a DM; the channel sees a pointer, no code, no thread', async () => {
    const { fake } = rig;
    const { bob } = fake.world.users;
    const threadsBefore = fake.calls.filter((c) => c.route === 'POST /channels/:id/messages/:id/threads').length;
    const channelBefore = new Set(fake.botMessages(fake.world.general.id).map((m) => m.id));
    fake.say(fake.world.general.id, bob, 'make me a thread', { mention: true });
    const dm = fake.dmChannel(bob);
    const told = await fake.waitFor(() => fake.botMessages(dm.id).find((m) => /access list/.test(m.content)), 15_000, 'the way-in by DM');
    const code = /turnbridge allow ([A-Z0-9]{6})`/.exec(told.content)?.[1];
    assert.ok(code, `the DM carries the pairing code: ${told.content}`);
    assert.ok(told.content.includes(`discord:${bob.id}`));
    assert.ok(fake.calls.some((c) => c.path === '/users/@me/channels' && c.method === 'POST'), `the DM was opened through the API: ${fake.calls.map((c) => c.route).join(', ')}`);
    const pointer = await fake.waitFor(() => fake.botMessages(fake.world.general.id).find((m) => !channelBefore.has(m.id)), 15_000, 'the pointer in the channel');
    assert.equal(pointer.content, WAY_IN_SENT_BY_DM);
    for (const m of fake.botMessages(fake.world.general.id)) assert.ok(!m.content.includes(code!), `no code in the channel: ${m.content}`);
    assert.equal(fake.calls.filter((c) => c.route === 'POST /channels/:id/messages/:id/threads').length, threadsBefore);
  });

  it('a stranger who takes no DMs gets the way in by id in the channel, still without a pairing code', async () => {
    const { fake } = rig;
    const { alice } = fake.world.users;
    fake.dmsClosed.add(alice.id);
    fake.say(fake.world.general.id, alice, 'and me', { mention: true });
    const refusal = await fake.waitFor(() => fake.botMessages(fake.world.general.id).find((m) => m.content.includes(`discord:${alice.id}`)), 15_000, 'the inline refusal');
    assert.match(refusal.content, /access list/);
    assert.doesNotMatch(refusal.content, /pairing code/);
    assert.equal(fake.botMessages(fake.dmChannel(alice).id).length, 0);
  });

  it('a role on the list works in the server; in a DM there is no role, so the DM cannot get past the server\'s route', async () => {
    const { fake } = rig;
    const { carol, erin } = fake.world.users;
    // A route scoped to the server narrows the list to carol (and, since it names the default
    // profile, holds in DMs too: test/e2e/discord/route-guard.test.ts).
    rig.config.routes.push({ platform: 'discord', space: rig.fake.world.guild.id, profile: rig.config.defaultProfile, allowUsers: [carol.id] });
    const inGuild = fake.say(fake.world.general.id, carol, 'in the server', { mention: true });
    await fake.waitFor(() => botSaid().some((m) => m.content === 'echo: in the server'), 20_000, 'carol\'s reply in the server');
    // erin gets the role: the global list lets her in, the server's route (carol only) does not.
    fake.world.memberRoles.set(erin.id, [role]);
    const erinInGuild = fake.say(fake.world.general.id, erin, 'me too', { mention: true });
    await fake.waitFor(() => botSaid().some((m) => /not allowed to use this bot here/.test(m.content) && m.content.includes(`discord:${erin.id}`)), 20_000, 'the route refusal');
    // In a DM no server route matches and roles do not travel: refused by the global list.
    const dm = fake.dm(erin, 'let me in through the back door');
    const refusal = await fake.waitFor(() => fake.botMessages(dm.channel_id).find((m) => /access list/.test(m.content)), 15_000, 'the DM refusal');
    assert.ok(refusal.content.includes(`discord:${erin.id}`));
    assert.ok(!botSaid().some((m) => m.content === 'echo: me too' || m.content === 'echo: let me in through the back door'), 'no agent ran for erin');
    void inGuild;
    void erinInGuild;
  });
});
