/**
 * End to end: a user on the fake Discord -> real discord.js -> real bridge core -> real agent
 * process -> live reply back on the fake.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

const fences = (s: string): number => (s.match(/```/g) ?? []).length;

describe('discord turns (real discord.js + bridge + agents)', () => {
  let rig: TurnRig;
  let inlineId = '';

  before(async () => {
    rig = await makeTurnRig({
      discord: { read_unmentioned: true },
      config: { routes: [{ platform: 'discord', channel: 'set below', profile: 'test/fixtures/discord-agents/profile.yaml', options: { reply: 'inline' } }] },
    });
    // route paths are resolved by the bridge; give it the absolute default instead
    rig.config.routes[0]!.profile = rig.config.defaultProfile;
    inlineId = rig.fake.addTextChannel('busy').id;
    rig.config.routes[0]!.channel = inlineId;
  });
  after(async () => {
    await rig.close();
    delete process.env.DEMO_DELAY_MS;
    delete process.env.DEMO_STATE_DIR;
  });

  it('DM -> streamed reply with the exact final text, thinking shown as subtext, typing first', async () => {
    const { fake } = rig;
    const sent = fake.dm(fake.world.users.alice, 'stream 8 250 1500');
    const [reply, ...rest] = await rig.finalReply(sent.channel_id, sent);
    assert.equal(rest.length, 0);
    assert.equal(reply!.content, 'chunk-1 chunk-2 chunk-3 chunk-4 chunk-5 chunk-6 chunk-7 chunk-8');
    assert.ok(reply!.history.length >= 2, `edited live (history ${reply!.history.length})`);
    assert.ok(reply!.history.some((h) => /^-# 💭 Thinking about it…/m.test(h)), 'thinking shown as subtext');
    assert.ok(!reply!.content.includes('Thinking'), 'thinking is not part of the answer');
    assert.ok(fake.calls.some((c) => c.route === 'POST /channels/:id/typing' && c.path.includes(sent.channel_id)));
    await fake.waitFor(() => fake.reactions.get(sent.id)?.has('✅'), 5000, 'the success reaction');
    assert.deepEqual([...fake.reactions.get(sent.id)!], ['✅']);
  });

  it('mention -> thread created and answered; a follow-up in the thread continues the session', async () => {
    const { fake } = rig;
    const { alice } = fake.world.users;
    const first = fake.say(fake.world.general.id, alice, 'session', { mention: true });
    await fake.waitFor(() => fake.channels.get(first.id), 10_000, 'the thread');
    const [r1] = await rig.finalReply(first.id, first);
    const m = /^session in=\(none\)$/.exec(r1!.content);
    assert.ok(m, r1!.content);
    assert.equal(fake.botMessages(fake.world.general.id).filter((x) => BigInt(x.id) > BigInt(first.id)).length, 0, 'nothing in the channel itself');
    const second = fake.say(first.id, alice, 'session');
    const [r2] = await rig.finalReply(first.id, second);
    assert.match(r2!.content, /^session in=sess-[0-9a-f]+$/);
    // and `new` starts over
    const reset = fake.say(first.id, alice, 'new');
    await fake.waitFor(() => rig.replies(first.id, reset).length > 0 ? true : undefined, 10_000, 'the reset acknowledgement');
    const third = fake.say(first.id, alice, 'session');
    const [r3] = await rig.finalReply(first.id, third);
    assert.equal(r3!.content, 'session in=(none)');
  });

  it('permission: a stranger gets an ephemeral refusal, the author allows, the prompt shows who decided', async () => {
    const { fake } = rig;
    const { alice, bob } = fake.world.users;
    const sent = fake.say(fake.world.general.id, alice, 'ask', { mention: true });
    const prompt = await fake.waitFor(() => fake.botMessages(sent.id).find((m) => m.content.startsWith('🔐')), 15_000, 'the prompt');
    const allow = prompt.components[0]!.components.find((b) => b.label === 'Allow once')!;
    const deny = prompt.components[0]!.components.find((b) => b.label === 'Deny')!;
    assert.equal(allow.style, 3);
    assert.equal(deny.style, 4);
    assert.ok(allow.custom_id!.length <= 100);
    assert.match(prompt.content, /Bash/);
    assert.match(prompt.content, /echo ok > f\.txt/);
    const wrong = fake.click(prompt.id, allow.custom_id!, bob);
    await fake.waitFor(() => wrong.followUps.length > 0, 5000, 'the ephemeral refusal');
    assert.equal(wrong.ack?.type, 6);
    assert.equal(wrong.followUps[0]!.flags, 64, 'ephemeral');
    assert.ok(prompt.content.startsWith('🔐'), 'still pending');
    const right = fake.click(prompt.id, allow.custom_id!, alice);
    const parts = await rig.finalReply(sent.id, sent, 15_000, (t) => t.includes('allowed:'));
    assert.equal(right.ack?.type, 6);
    assert.match(parts.map((p) => p.content).join('\n'), /Let me run a command\.[\s\S]*allowed: echo ok > f\.txt/);
    // chronology: the answer before the prompt, the prompt, the answer after it (a new message)
    const order = fake.botMessages(sent.id).map((m) => (m.id === prompt.id ? '[prompt]' : m.content));
    assert.equal(order.length, 3, JSON.stringify(order));
    assert.match(order[0]!, /^Let me run a command\.\s*$/);
    assert.equal(order[1], '[prompt]');
    assert.match(order[2]!, /^allowed: echo ok > f\.txt/);
    // the prompt's update is paced through the edit budget: it may land after the final reply
    await fake.waitFor(() => prompt.components.length === 0 || undefined, 15_000, 'the decided prompt');
    assert.match(prompt.content, /Allowed once\*\* by @Alice/);
    assert.deepEqual(prompt.components, []);
  });

  it('permission: deny in a DM', async () => {
    const { fake } = rig;
    const { alice } = fake.world.users;
    const sent = fake.dm(alice, 'ask');
    const prompt = await fake.waitFor(() => fake.botMessages(sent.channel_id).find((m) => BigInt(m.id) > BigInt(sent.id) && m.content.startsWith('🔐')), 15_000, 'the prompt');
    fake.click(prompt.id, prompt.components[0]!.components.find((b) => b.label === 'Deny')!.custom_id!, alice);
    const parts = await rig.finalReply(sent.channel_id, sent, 15_000, (t) => t.includes('denied'));
    assert.match(parts.at(-1)!.content, /denied/);
    const after = fake.botMessages(sent.channel_id).filter((m) => BigInt(m.id) > BigInt(sent.id));
    assert.deepEqual(after.map((m) => (m.id === prompt.id ? '[prompt]' : /denied/.test(m.content) ? 'after' : 'before')), ['before', '[prompt]', 'after']);
    // the prompt's update is paced through the edit budget: it may land after the final reply
    await fake.waitFor(() => prompt.components.length === 0 || undefined, 15_000, 'the decided prompt');
    assert.match(prompt.content, /Denied\*\* by @Alice/);
  });

  it('permission: a member with an approver role may decide for the author', async () => {
    const { fake } = rig;
    const { alice, carol } = fake.world.users;
    rig.config.approvers.push(`discord:role:${fake.world.guild.roles[1]!.id}`); // the bridge reads this list on each click
    try {
      const sent = fake.say(fake.world.general.id, alice, 'ask', { mention: true });
      const prompt = await fake.waitFor(() => fake.botMessages(sent.id).find((m) => m.content.startsWith('🔐')), 15_000, 'the prompt');
      const it = fake.click(prompt.id, prompt.components[0]!.components[0]!.custom_id!, carol);
      await rig.finalReply(sent.id, sent, 15_000, (t) => t.includes('allowed:'));
      assert.equal(it.followUps.length, 0);
      // the prompt's update is paced through the edit budget: it may land after the final reply
      await fake.waitFor(() => prompt.components.length === 0 || undefined, 15_000, 'the decided prompt');
      assert.match(prompt.content, /Allowed once\*\* by @Carol/);
    } finally {
      rig.config.approvers.length = 0;
    }
  });

  it('permission: no decision in time -> denied, and the prompt says it timed out', async () => {
    const { fake } = rig;
    const saved = rig.config.permissionTimeoutSecs;
    rig.config.permissionTimeoutSecs = 1; // read per turn by the bridge
    try {
      const sent = fake.dm(fake.world.users.dave, 'ask');
      const parts = await rig.finalReply(sent.channel_id, sent, 15_000, (t) => t.includes('denied'));
      assert.match(parts.at(-1)!.content, /denied/);
      const prompt = fake.botMessages(sent.channel_id).find((m) => BigInt(m.id) > BigInt(sent.id) && m.history[0]!.startsWith('🔐'))!;
      await fake.waitFor(() => prompt.content.startsWith('⌛'), 5000, 'the prompt to show the timeout');
      assert.match(prompt.content, /Timed out/);
      assert.deepEqual(prompt.components, []);
    } finally {
      rig.config.permissionTimeoutSecs = saved;
    }
  });

  it('Stop: the Stop button ends a running turn and the button goes away', async () => {
    const { fake } = rig;
    const { bob } = fake.world.users;
    const sent = fake.dm(bob, 'slow');
    const live = await fake.waitFor(() => rig.replies(sent.channel_id, sent).find((m) => m.components.length > 0 && m.content.includes('tick-')), 15_000, 'a live reply with ticks');
    const stop = live.components[0]!.components[0]!;
    assert.equal(stop.label, 'Stop');
    const stranger = fake.click(live.id, stop.custom_id!, fake.world.users.alice);
    await fake.waitFor(() => stranger.followUps.length > 0, 5000, 'the refusal for a stranger');
    assert.equal(stranger.followUps[0]!.flags, 64);
    assert.equal(live.components.length, 1, 'still running');
    fake.click(live.id, stop.custom_id!, bob);
    const [reply] = await rig.finalReply(sent.channel_id, sent);
    assert.match(reply!.content, /stopped by @Bob/);
    assert.ok(!reply!.content.includes('tick-200'), 'stopped early');
    assert.deepEqual(reply!.components, []);
    // a late click on the old button (a client that had not refreshed) is acknowledged and answered privately
    const late = fake.click(live.id, stop.custom_id!, bob);
    await fake.waitFor(() => late.followUps.length > 0, 5000, 'the answer to a late click');
    assert.equal(late.ack?.type, 6);
  });

  it('a 6,000-character reply with a code block is split into parts under 2,000 with fences intact', async () => {
    const { fake } = rig;
    const sent = fake.dm(fake.world.users.carol, 'long');
    const complete = (t: string): boolean => t.includes('THE END') && t.includes('Line 39 of prose') && t.includes('const value0 ');
    const parts = await rig.finalReply(sent.channel_id, sent, 20_000, complete);
    assert.ok(parts.length >= 3, `parts: ${parts.length}`);
    for (const p of parts) {
      assert.ok(p.content.length <= 2000, `part of ${p.content.length}`);
      assert.equal(fences(p.content) % 2, 0, `balanced fences in: ${p.content.slice(0, 80)}`);
    }
    const all = parts.map((p) => p.content).join('\n');
    for (let i = 0; i < 60; i++) assert.ok(all.includes(`const value${i} = compute(${i}); // step ${i}`), `code line ${i}`);
    for (let i = 0; i < 40; i++) assert.ok(all.includes(`Line ${i} of prose`), `prose line ${i}`);
    assert.ok(parts.at(-1)!.content.includes('THE END'));
  });

  it('an attachment reaches the agent as a file:// attachment', async () => {
    const { fake } = rig;
    const { dave } = fake.world.users;
    const att = fake.addFile(fake.dmChannel(dave).id, 'hello.txt', 'hello from a file', 'text/plain');
    const sent = fake.dm(dave, 'file', [att]);
    const [reply] = await rig.finalReply(sent.channel_id, sent);
    assert.equal(reply!.content, 'file hello.txt: hello from a file');
    assert.ok(fake.calls.some((c) => c.path.startsWith('/attachments/') && c.status === 200));
  });

  it('a gateway reconnect (op 7) mid-turn loses neither the reply nor a message sent meanwhile', async () => {
    const { fake } = rig;
    const { erin } = fake.world.users;
    const sent = fake.dm(erin, 'stream 10 150');
    await fake.waitFor(() => rig.replies(sent.channel_id, sent).length > 0, 10_000, 'the live reply');
    const resumesBefore = fake.gateway.resumes;
    fake.gateway.requestReconnect();
    await fake.gateway.until(() => !fake.gateway.connected);
    const during = fake.say(fake.world.general.id, erin, 'echo me', { mention: true });
    const [reply] = await rig.finalReply(sent.channel_id, sent);
    assert.equal(reply!.content, Array.from({ length: 10 }, (_, i) => `chunk-${i + 1}`).join(' '));
    assert.equal(fake.gateway.resumes, resumesBefore + 1);
    await fake.waitFor(() => fake.channels.get(during.id), 10_000, 'the thread for the message sent while away');
    const [r2] = await rig.finalReply(during.id, during);
    assert.equal(r2!.content, 'echo: echo me');
  });

  it('5 concurrent replies in one channel: zero 429s, at most one edit in flight per message, exact finals', async () => {
    const { fake } = rig;
    const users = [fake.world.users.alice, fake.world.users.bob, fake.world.users.carol, fake.world.users.dave, fake.world.users.erin];
    const rejectedBefore = fake.rateLimits.rejected.length;
    const sent = users.map((u) => fake.say(inlineId, u, 'stream 12 200', { mention: true }));
    const expected = Array.from({ length: 12 }, (_, i) => `chunk-${i + 1}`).join(' ');
    await fake.waitFor(() => {
      const mine = fake.botMessages(inlineId);
      return mine.length >= 5 && mine.every((m) => m.content === expected && m.components.length === 0) ? true : undefined;
    }, 40_000, 'five final replies');
    assert.equal(fake.botMessages(inlineId).length, 5, 'one message per reply');
    assert.equal(fake.rateLimits.rejected.length - rejectedBefore, 0, 'no 429 from Discord');
    assert.ok(rig.maxEditsInFlight() <= 1, `edits in flight per message: ${rig.maxEditsInFlight()}`);
    assert.ok(fake.channels.get(sent[0]!.id) === undefined, 'inline: no thread');
    const edits = fake.calls.filter((c) => c.route === 'PATCH /channels/:id/messages/:id' && c.path.includes(inlineId));
    assert.ok(edits.length >= 5, 'each reply was edited');
  });

  it('profiles/demo: thinking, a prompt, the allowed tool, and turn 2 of the same session in the thread', async () => {
    const { fake } = rig;
    process.env.DEMO_DELAY_MS = '20';
    process.env.DEMO_STATE_DIR = join(rig.dir, 'demo-sessions');
    const demo = fake.addTextChannel('demo');
    rig.config.routes.push({ platform: 'discord', channel: demo.id, profile: join(process.cwd(), 'profiles/demo/profile.yaml') });
    const { bob } = fake.world.users;
    const sent = fake.say(demo.id, bob, 'hello demo', { mention: true });
    const prompt = await fake.waitFor(() => fake.botMessages(sent.id).find((m) => m.content.startsWith('🔐')), 15_000, 'the demo prompt');
    assert.match(prompt.content, /Run `date`/);
    fake.click(prompt.id, prompt.components[0]!.components[0]!.custom_id!, bob);
    const parts = await rig.finalReply(sent.id, sent, 15_000, (t) => t.includes('Permission granted'));
    const text = parts.map((p) => p.content).join('\n');
    assert.match(text, /This is turn 1 of session demo-[0-9a-f]{16}/);
    assert.match(text, /You said: hello demo/);
    const next = fake.say(sent.id, bob, 'again');
    const prompt2 = await fake.waitFor(() => fake.botMessages(sent.id).find((m) => BigInt(m.id) > BigInt(next.id) && m.content.startsWith('🔐')), 15_000, 'the second prompt');
    fake.click(prompt2.id, prompt2.components[0]!.components.find((b) => b.label === 'Deny')!.custom_id!, bob);
    const parts2 = await rig.finalReply(sent.id, next, 15_000, (t) => t.includes('Permission denied'));
    const session = /session (demo-[0-9a-f]{16})/.exec(text)![1]!;
    assert.match(parts2.map((p) => p.content).join('\n'), new RegExp(`This is turn 2 of session ${session}`));
  });
});
