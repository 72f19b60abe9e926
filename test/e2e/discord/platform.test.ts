/**
 * The Discord platform against the fake, with a recording bridge: what arrives as InboundMessage /
 * ActionEvent, and what the Surface sends. The full turn flow is in turns.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { isTurnbridgeError } from '../../../src/errors.js';
import { makeRig, RecordingBridge, type Rig } from './harness.js';

describe('discord platform (fake Discord, recording bridge)', () => {
  let rig: Rig;
  let inlineId = '';
  const bridge = new RecordingBridge();

  before(async () => {
    rig = await makeRig({ config: { routes: [{ platform: 'discord', channel: 'set below', profile: 'x', options: { reply: 'inline' } }] } });
    inlineId = rig.fake.addTextChannel('inline').id;
    rig.config.routes[0]!.channel = inlineId;
    await rig.platform.start(bridge);
  });
  after(async () => { await rig.close(); });

  it('logs in with the configured intents and reports ready', async () => {
    assert.deepEqual(rig.platform.status(), { state: 'ready' });
    const gb = rig.fake.calls.filter((c) => c.route === 'GET /gateway/bot');
    assert.equal(gb.length, 1);
    assert.equal(gb[0]!.auth, true);
    // Guilds | GuildMessages | DirectMessages, and MessageContent because read_unmentioned is
    // auto and the fake application has it granted (message-content.test.ts covers the rest)
    assert.equal(rig.fake.gateway.intents, 1 | (1 << 9) | (1 << 12) | (1 << 15));
  });

  it('a DM becomes an InboundMessage whose conversation is the DM channel', async () => {
    const { alice } = rig.fake.world.users;
    const sent = rig.fake.dm(alice, 'hello there');
    const msg = await bridge.until(() => bridge.messages.find((m) => m.eventId === `discord:${sent.id}`));
    assert.equal(msg.platform, 'discord');
    assert.deepEqual(msg.conversation, { space: '', channel: sent.channel_id, thread: '' });
    assert.equal(msg.text, 'hello there');
    assert.equal(msg.user.id, alice.id);
    assert.deepEqual(msg.attachments, []);
  });

  it('a mention starts a thread from the message; mentions become readable names', async () => {
    const { alice, bob } = rig.fake.world.users;
    const general = rig.fake.world.general;
    const role = rig.fake.world.guild.roles[1]!;
    const sent = rig.fake.say(general.id, alice, `ask <@${bob.id}> and <@&${role.id}> in <#${general.id}>`, { mention: true });
    const msg = await bridge.until(() => bridge.messages.find((m) => m.eventId === `discord:${sent.id}`));
    assert.equal(msg.text, 'ask @Bob and @approvers in #general');
    assert.deepEqual(msg.conversation, { space: rig.fake.world.guild.id, channel: general.id, thread: sent.id });
    const thread = rig.fake.channels.get(sent.id);
    assert.equal(thread?.type, 11);
    assert.equal(thread?.parent_id, general.id);
    assert.match(thread!.name!, /^ask @Bob/);
    // the bot's own post into the thread (echoed back by the gateway) must not come back as a message
    const before = bridge.messages.length;
    await rig.platform.surface.post(msg.conversation, { text: 'answer in thread' });
    await rig.fake.waitFor(() => rig.fake.botMessages(sent.id).length === 1);
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(bridge.messages.length, before);
  });

  it('without Create Public Threads the answer goes inline, with a notice', async () => {
    const { fake } = rig;
    const ch = fake.addTextChannel('locked');
    fake.denied.set(ch.id, new Set(['thread']));
    await new Promise((r) => setTimeout(r, 50)); // let CHANNEL_CREATE reach the client
    const sent = fake.say(ch.id, fake.world.users.alice, 'hi', { mention: true });
    const msg = await bridge.until(() => bridge.messages.find((m) => m.eventId === `discord:${sent.id}`));
    assert.deepEqual(msg.conversation, { space: fake.world.guild.id, channel: ch.id, thread: `user:${fake.world.users.alice.id}` });
    assert.match(msg.notices?.[0] ?? '', /Create Public Threads/);
    assert.ok(fake.calls.some((c) => c.route === 'POST /channels/:id/messages/:id/threads' && c.status === 403));
  });

  it('ignores un-mentioned channel messages and other bots', async () => {
    const { alice, otherbot } = rig.fake.world.users;
    const general = rig.fake.world.general;
    const a = rig.fake.say(general.id, alice, 'just chatting');
    const b = rig.fake.say(general.id, otherbot, 'beep', { mention: true });
    const marker = rig.fake.dm(alice, 'marker');
    await bridge.until(() => bridge.messages.find((m) => m.eventId === `discord:${marker.id}`));
    assert.equal(bridge.messages.some((m) => m.eventId === `discord:${a.id}` || m.eventId === `discord:${b.id}`), false);
  });

  it('inline routes answer in the channel, one conversation per author', async () => {
    const fake = rig.fake;
    const inline = fake.channel(inlineId);
    const sent = fake.say(inline.id, fake.world.users.bob, 'inline please', { mention: true });
    const msg = await bridge.until(() => bridge.messages.find((m) => m.eventId === `discord:${sent.id}`));
    assert.deepEqual(msg.conversation, { space: fake.world.guild.id, channel: inline.id, thread: `user:${fake.world.users.bob.id}` });
    assert.equal(fake.channels.has(sent.id), false, 'no thread started');
    const ref = await rig.platform.surface.post(msg.conversation, { text: 'inline answer' });
    assert.equal(fake.botMessages(inline.id).at(-1)?.content, 'inline answer');
    assert.ok(ref.id.startsWith(`${inline.id}/`));
  });

  it('renders live messages: thinking as subtext, status, Stop button; edit removes it', async () => {
    const fake = rig.fake;
    const conv = { space: '', channel: fake.dmChannel(fake.world.users.alice).id, thread: '' };
    const ref = await rig.platform.surface.post(conv, { text: '', thinking: 'pondering\nhard', status: 'working…', tone: 'progress', stopActionId: 'turn-1' });
    const id = ref.id.split('/')[1]!;
    const m = fake.messages.get(id)!;
    assert.equal(m.content, '-# 💭 pondering hard\n-# ⏳ working…');
    assert.deepEqual(m.components, [{ type: 1, components: [{ type: 2, style: 2, label: 'Stop', custom_id: 'tb:stop:turn-1' }] }]);
    await rig.platform.surface.edit(ref, { text: 'The answer.', status: 'done', tone: 'success' });
    assert.equal(m.content, 'The answer.\n-# ✅ done');
    assert.deepEqual(m.components, []);
    const body = fake.calls.filter((c) => c.route === 'PATCH /channels/:id/messages/:id').at(-1)!.body;
    assert.deepEqual(body.allowed_mentions, { parse: [] });
  });

  it('a prompt click is acknowledged at once and reaches the bridge; notifyPrivately is ephemeral', async () => {
    const fake = rig.fake;
    const { alice } = fake.world.users;
    const conv = { space: '', channel: fake.dmChannel(alice).id, thread: '' };
    const ref = await rig.platform.surface.postPrompt(conv, { promptId: 'p1', toolName: 'Bash', description: 'Write a file', inputPreview: '{"command":"echo ```hi```"}', state: 'pending' });
    const msg = fake.messages.get(ref.id.split('/')[1]!)!;
    assert.match(msg.content, /Permission needed/);
    assert.match(msg.content, /Tool: `Bash`/);
    assert.equal(msg.content.split('```').length, 3, 'the input cannot close the code block early');
    const buttons = msg.components[0]!.components;
    assert.deepEqual(buttons.map((b) => [b.label, b.style, b.custom_id]), [['Allow once', 3, 'tb:allow:p1'], ['Deny', 4, 'tb:deny:p1'], ['Deny with reason', 4, 'tb:deny_reason:p1']]);
    const it = fake.click(msg.id, 'tb:allow:p1', alice);
    const ev = await bridge.until(() => bridge.actions.find((a) => a.id === 'p1'));
    assert.equal(ev.action, 'allow');
    assert.equal(ev.user.id, alice.id);
    assert.equal(it.ack?.type, 6, 'deferUpdate');
    await ev.notifyPrivately('only for you');
    assert.deepEqual(it.followUps, [{ content: 'only for you', flags: 64 }]);
    await rig.platform.surface.updatePrompt(ref, { promptId: 'p1', toolName: 'Bash', inputPreview: '{}', state: 'allowed', decidedBy: { id: alice.id, name: 'Alice' } });
    assert.match(msg.content, /Allowed\*\* by @Alice/);
    assert.deepEqual(msg.components, []);
  });

  it('a click in a guild carries the member roles (approver checks)', async () => {
    const fake = rig.fake;
    const { carol } = fake.world.users;
    const conv = { space: fake.world.guild.id, channel: fake.world.general.id, thread: '' };
    const ref = await rig.platform.surface.post(conv, { text: 'x', stopActionId: 'turn-9' });
    fake.click(ref.id.split('/')[1]!, 'tb:stop:turn-9', carol);
    const ev = await bridge.until(() => bridge.actions.find((a) => a.id === 'turn-9'));
    assert.equal(ev.action, 'stop');
    assert.deepEqual(ev.user.roles, [fake.world.guild.roles[1]!.id]);
  });

  it('typing repeats until text shows; reactions reflect state', async () => {
    const fake = rig.fake;
    const conv = { space: '', channel: fake.dmChannel(fake.world.users.bob).id, thread: '' };
    const typing = () => fake.calls.filter((c) => c.route === 'POST /channels/:id/typing' && c.path.includes(conv.channel)).length;
    await rig.platform.surface.showTyping!(conv);
    await fake.waitFor(() => typing() >= 3, 5000, 'three typing calls');
    await rig.platform.surface.post(conv, { text: 'first text' });
    const n = typing();
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(typing() <= n + 1, 'typing stopped once text was shown');
    const src = fake.dm(fake.world.users.bob, 'react to me');
    const source = { id: `${src.channel_id}/${src.id}`, conversation: conv };
    await rig.platform.surface.react!(source, 'working');
    assert.deepEqual([...fake.reactions.get(src.id)!], ['👀']);
    await rig.platform.surface.react!(source, 'success');
    assert.deepEqual([...fake.reactions.get(src.id)!], ['✅']);
  });

  it('a 429 on an edit surfaces as RateLimitedError with retryAfterMs', async () => {
    const fake = rig.fake;
    const conv = { space: '', channel: fake.dmChannel(fake.world.users.carol).id, thread: '' };
    const ref = await rig.platform.surface.post(conv, { text: 'one' });
    fake.rateLimits.force429('PATCH /channels/:id/messages/:id', 1, 2);
    await assert.rejects(rig.platform.surface.edit(ref, { text: 'two' }), (e: unknown) => {
      assert.ok(isTurnbridgeError(e, 'TB_RATE_LIMITED'));
      assert.ok((e as unknown as { retryAfterMs: number }).retryAfterMs >= 1000);
      return true;
    });
  });

  it('attachments are downloaded to file:// URLs', async () => {
    const fake = rig.fake;
    const { alice } = fake.world.users;
    const ch = fake.dmChannel(alice);
    const att = fake.addFile(ch.id, 'notes.txt', 'file body 42', 'text/plain');
    const sent = fake.dm(alice, 'see file', [att]);
    const msg = await bridge.until(() => bridge.messages.find((m) => m.eventId === `discord:${sent.id}`));
    assert.deepEqual(msg.attachments, [], 'fetched only when the bridge asks (after its access and queue checks)');
    assert.equal(msg.direct, true);
    const got = await msg.download!.fetch();
    assert.equal(got.attachments.length, 1);
    const a = got.attachments[0]!;
    assert.equal(a.filename, 'notes.txt');
    assert.equal(a.mime_type, 'text/plain');
    assert.equal(a.size, 12);
    assert.ok(a.url.startsWith('file://'));
    assert.equal(await readFile(fileURLToPath(a.url), 'utf8'), 'file body 42');
    assert.ok(!String(a.source_url).includes('?'), 'signed query is dropped');
    await got.cleanup();
  });
});
