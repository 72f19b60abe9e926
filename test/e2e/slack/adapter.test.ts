/**
 * The real Bolt app (through createSlackPlatform) against the fake Slack, with a recording
 * bridge: events -> InboundMessage, clicks -> ActionEvent, Surface ops -> Web API calls.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { isTurnbridgeError, RateLimitedError } from '../../../src/errors.js';
import { FakeSlack, BOT_USER, TEAM, buttons, contextLines, visibleText } from '../../fakes/slack/index.js';
import { RecordingBridge, makePlatform } from './harness.js';
import type { SlackPlatform } from '../../../src/platforms/slack/index.js';

let fake: FakeSlack;
let platform: SlackPlatform;
const bridge = new RecordingBridge();
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

before(async () => {
  fake = await FakeSlack.start({ users: { U0ANA: 'ana', U0BEN: 'ben' } });
  platform = makePlatform(fake, { typing: true });
  await platform.start(bridge);
  assert.deepEqual(platform.status(), { state: 'ready' });
});

after(async () => {
  await platform.stop();
  await fake.close();
});

test('a mention arrives once (app_mention + message), text made readable, thread = the message ts', async () => {
  const before = bridge.messages.length;
  const { ts, eventIds } = await fake.userMessage({
    channel: 'C0GEN', user: 'U0ANA',
    text: `<@${BOT_USER}> ask <@U0BEN> about <#C0OPS|ops> and <https://example.com|the docs> or <https://x.test> &lt;3`,
  });
  assert.equal(eventIds.length, 2);
  const msg = await bridge.waitFor(() => bridge.messages.length > before && bridge.messages.at(-1), 'the mention');
  assert.equal(msg.platform, 'slack');
  assert.deepEqual(msg.conversation, { space: TEAM, channel: 'C0GEN', thread: ts });
  assert.equal(msg.text, 'ask @ben about #ops and the docs (https://example.com) or https://x.test <3');
  assert.deepEqual(msg.user, { id: 'U0ANA', name: 'ana' });
  assert.equal(msg.eventId, eventIds[0]);
  assert.equal(msg.source?.id, `C0GEN:${ts}`);
  // the twin message event was acked and produced nothing more
  await fake.waitFor(() => fake.socket.acks.length >= 2, 'acks');
  // The event id was claimed with the message's channel + ts, in one claim (the bridge does not
  // claim it again); the twin, finding the shared key taken, claimed nothing.
  assert.equal(msg.claimed, true);
  const claims = bridge.claims();
  assert.ok(claims.includes(`slack:${eventIds[0]}`) && claims.includes(`slack:msg:C0GEN:${ts}`), claims.join(' '));
  assert.ok(!claims.includes(`slack:${eventIds[1]}`));
  await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'unrelated top-level chatter' });
  assert.equal(bridge.messages.length, before + 1);

  // follow-up in the thread without a mention continues the conversation
  await fake.userMessage({ channel: 'C0GEN', user: 'U0BEN', text: 'and the tests?', threadTs: ts });
  const follow = await bridge.waitFor(() => bridge.messages.length > before + 1 && bridge.messages.at(-1), 'follow-up');
  assert.deepEqual(follow.conversation, { space: TEAM, channel: 'C0GEN', thread: ts });
  assert.equal(follow.text, 'and the tests?');

  // another thread without a mention is ignored; with a mention it starts that thread's conversation
  const other = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'root' });
  await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'not for the bot', threadTs: other.ts });
  await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> now for you`, threadTs: other.ts });
  const inOther = await bridge.waitFor(() => bridge.messages.length > before + 2 && bridge.messages.at(-1), 'mention in another thread');
  assert.equal(inOther.text, 'now for you');
  assert.equal(inOther.conversation.thread, other.ts);
  assert.equal(bridge.messages.length, before + 3);
});

test('DMs: top level is one conversation per DM channel, a DM thread is its own', async () => {
  const before = bridge.messages.length;
  await fake.userMessage({ channel: 'D0ANA', user: 'U0ANA', text: 'hello there' });
  const top = await bridge.waitFor(() => bridge.messages.length > before && bridge.messages.at(-1), 'dm');
  assert.deepEqual(top.conversation, { space: TEAM, channel: 'D0ANA', thread: '' });
  const root = top.source!.id.split(':')[1]!;
  await fake.userMessage({ channel: 'D0ANA', user: 'U0ANA', text: 'in a thread', threadTs: root });
  const inThread = await bridge.waitFor(() => bridge.messages.length > before + 1 && bridge.messages.at(-1), 'dm thread');
  assert.deepEqual(inThread.conversation, { space: TEAM, channel: 'D0ANA', thread: root });
});

test('redelivered envelopes, own messages, other bots and edits run nothing', async () => {
  const before = bridge.messages.length;
  const ts = fake.nextTs();
  const ev = { type: 'message', channel: 'D0ANA', channel_type: 'im', user: 'U0ANA', text: 'once', ts, event_ts: ts };
  await fake.sendEvent(ev, { eventId: 'EvSAME' });
  await fake.sendEvent(ev, { eventId: 'EvSAME', retryAttempt: 1 });
  await fake.sendEvent({ ...ev, user: BOT_USER, text: 'my own reply', ts: fake.nextTs() });
  await fake.sendEvent({ ...ev, user: 'U0OTHERBOT', bot_id: 'B0OTHER', text: 'bot chatter', ts: fake.nextTs() });
  await fake.sendEvent({ ...ev, subtype: 'message_changed', ts: fake.nextTs() });
  await fake.sendEvent({ ...ev, subtype: 'channel_join', ts: fake.nextTs() });
  await fake.sendEvent({ ...ev, text: 'marker', ts: fake.nextTs() });
  await bridge.waitFor(() => bridge.messages.some((m) => m.text === 'marker'), 'marker');
  assert.deepEqual(bridge.messages.slice(before).map((m) => m.text), ['once', 'marker']);
});

test('an image-only message arrives as a file:// attachment with the right bytes, fetched only when the bridge asks; the token stays out', async () => {
  const before = bridge.messages.length;
  const file = fake.addFile('screen shot.png', 'image/png', PNG);
  const downloadsBefore = fake.callsTo('GET file').length;
  await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}>`, files: [file] });
  const msg = await bridge.waitFor(() => bridge.messages.length > before && bridge.messages.at(-1), 'file message');
  assert.equal(msg.text, '');
  assert.deepEqual(msg.attachments, []);
  assert.equal(msg.download?.count, 1);
  assert.equal(fake.callsTo('GET file').length, downloadsBefore, 'nothing fetched before the bridge accepted the message');
  assert.ok(!JSON.stringify(msg).includes(fake.botToken));
  const got = await msg.download!.fetch();
  assert.equal(got.attachments.length, 1);
  const a = got.attachments[0]!;
  assert.equal(a.kind, 'image');
  assert.equal(a.mime_type, 'image/png');
  assert.equal(a.size, PNG.length);
  assert.equal(a.filename, 'screen shot.png');
  assert.deepEqual(await readFile(fileURLToPath(a.url)), PNG);
  assert.ok(!JSON.stringify(got).includes(fake.botToken));
  assert.equal(fake.callsTo('GET file').at(-1)?.auth, 'bot');
  await got.cleanup();
  await assert.rejects(readFile(fileURLToPath(a.url)));
});

test('Surface: post and edit with Block Kit, thinking and status, Stop button; 429 -> RateLimitedError', async () => {
  const s = platform.surface;
  const conv = { space: TEAM, channel: 'C0SURF', thread: '1700000000.000001' };
  const ref = await s.post(conv, { text: '', thinking: 'reading the repo', status: 'working…', tone: 'progress', stopActionId: 'stop-1' });
  const [, ts] = ref.id.split(':');
  let m = fake.message('C0SURF', ts!)!;
  assert.equal(m.thread_ts, conv.thread);
  assert.match(contextLines(m)[0]!, /reading the repo/);
  assert.deepEqual(buttons(m).map((b) => [b.action_id, b.value]), [['tb_stop', 'stop-1']]);
  await s.edit(ref, { text: '# Title\n\n```ts\nconst a = 1;\n```', status: 'done', tone: 'success' });
  m = fake.message('C0SURF', ts!)!;
  assert.equal(visibleText(m), '# Title\n\n```ts\nconst a = 1;\n```');
  assert.deepEqual(buttons(m), []);
  assert.ok(m.text.length > 0 && m.text.length <= 4000);
  // Slack answers 429 + Retry-After: thrown at once as RateLimitedError, never retried by the client
  fake.fault('chat.update', { status: 429, retryAfter: '7' });
  const err = await s.edit(ref, { text: 'four' }).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof RateLimitedError && isTurnbridgeError(err, 'TB_RATE_LIMITED'), String(err));
  assert.equal((err as RateLimitedError).retryAfterMs, 7000);
  fake.fault('chat.update', { status: 429 }); // no Retry-After at all
  const bare = await s.edit(ref, { text: 'five' }).then(() => undefined, (e: unknown) => e);
  assert.ok(bare instanceof RateLimitedError && bare.retryAfterMs === 1000, String(bare));
  assert.equal(fake.callsTo('chat.update').filter((c) => c.status === 429).length, 2, 'the client did not retry a 429 itself');
  assert.deepEqual(s.budgets('edit', conv).map((b) => [b.key, b.perMinute]), [[`slack:${TEAM}:chat.update`, 45]]);
  assert.equal(s.budgets('post', conv)[0]!.key, `slack:${TEAM}:C0SURF:post`);
  // a platform error is a coded TB_PLATFORM_ERROR
  fake.fault('chat.postMessage', { error: 'channel_not_found' });
  await assert.rejects(s.post(conv, { text: 'x' }), (e: unknown) => isTurnbridgeError(e, 'TB_PLATFORM_ERROR') && /channel_not_found/.test((e as Error).message));
});

test('Surface: permission prompt buttons carry the opaque id; the outcome replaces them', async () => {
  const s = platform.surface;
  const conv = { space: TEAM, channel: 'C0SURF', thread: '1700000000.000001' };
  const input = { command: 'rm -rf build && echo "```"', big: 'x'.repeat(5000) };
  const ref = await s.postPrompt(conv, { promptId: 'p-42', toolName: 'Bash', description: 'Run a command', inputPreview: JSON.stringify(input, null, 2), state: 'pending' });
  const ts = ref.id.split(':')[1]!;
  let m = fake.message('C0SURF', ts)!;
  const b = buttons(m);
  assert.deepEqual(b.map((x) => [x.action_id, x.value, x.style]), [
    ['tb_allow', 'p-42', 'primary'], ['tb_deny', 'p-42', 'danger'], ['tb_deny_reason', 'p-42', undefined], ['tb_show_input', 'p-42', undefined],
  ], 'the input is cut to fit the section: Show full input');
  const section = m.blocks.filter((x) => x.type === 'section').map((x) => x.text.text as string);
  assert.match(section[0]!, /Bash/);
  assert.ok(section[1]!.startsWith('```\n') && section[1]!.endsWith('\n```') && section[1]!.length <= 3000);
  assert.equal(section[1]!.match(/```/g)!.length, 2, 'no fence inside the code block');
  await s.updatePrompt(ref, { promptId: 'p-42', toolName: 'Bash', inputPreview: '{}', state: 'allowed', decidedBy: { id: 'U0ANA', name: 'ana' } });
  m = fake.message('C0SURF', ts)!;
  assert.deepEqual(buttons(m), []);
  assert.match(contextLines(m).join(' '), /Allowed by <@U0ANA>/);
  assert.match(m.text, /Allowed by @ana/);
});

test('Surface: reactions on the source message; typing through assistant.threads.setStatus', async () => {
  const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'plain' });
  const source = { id: `C0GEN:${ts}`, conversation: { space: TEAM, channel: 'C0GEN', thread: ts } };
  await platform.surface.react!(source, 'working');
  assert.deepEqual([...fake.message('C0GEN', ts)!.reactions], ['eyes']);
  await platform.surface.react!(source, 'success');
  assert.deepEqual([...fake.message('C0GEN', ts)!.reactions], ['white_check_mark']);
  await platform.surface.react!(source, 'failure');
  assert.deepEqual([...fake.message('C0GEN', ts)!.reactions].sort(), ['white_check_mark', 'x']);
  await platform.surface.showTyping!(source.conversation);
  assert.deepEqual(fake.state.statuses.at(-1), { channel_id: 'C0GEN', thread_ts: ts, status: 'is thinking…' });
});

test('a button click is acked and becomes an ActionEvent; notifyPrivately posts an ephemeral', async () => {
  const before = bridge.actions.length;
  const ref = await platform.surface.postPrompt({ space: TEAM, channel: 'C0GEN', thread: '1700000000.000009' }, { promptId: 'p-7', toolName: 'Edit', inputPreview: '{}', state: 'pending' });
  await fake.click({ user: 'U0BEN', userName: 'ben', actionId: 'tb_deny', value: 'p-7', channel: 'C0GEN', messageTs: ref.id.split(':')[1]! });
  const ev = await bridge.waitFor(() => bridge.actions.length > before && bridge.actions.at(-1), 'action');
  assert.equal(ev.action, 'deny');
  assert.equal(ev.id, 'p-7');
  assert.deepEqual(ev.user, { id: 'U0BEN', name: 'ben' });
  await ev.notifyPrivately('Only the person who started this turn can decide.');
  assert.deepEqual(fake.ephemerals.at(-1), { channel: 'C0GEN', user: 'U0BEN', text: 'Only the person who started this turn can decide.', thread_ts: '1700000000.000009', shown: true });
});

test('tellPrivately: an ephemeral to the person alone, in the thread only when it is active (else Slack would not show it)', async () => {
  const top = await fake.userMessage({ channel: 'C0GEN', user: 'U0BEN', text: `<@${BOT_USER}> top` });
  const conversation = { space: TEAM, channel: 'C0GEN', thread: top.ts };
  assert.equal(await platform.surface.tellPrivately!({ id: `C0GEN:${top.ts}`, conversation }, { id: 'U0BEN' }, 'just you'), 'here');
  assert.deepEqual(fake.ephemerals.at(-1), { channel: 'C0GEN', user: 'U0BEN', text: 'just you', shown: true }, 'a top-level mention: in the channel');
  const reply = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'a reply', threadTs: top.ts });
  await platform.surface.tellPrivately!({ id: `C0GEN:${reply.ts}`, conversation }, { id: 'U0ANA' }, 'in the thread');
  assert.deepEqual(fake.ephemerals.at(-1), { channel: 'C0GEN', user: 'U0ANA', text: 'in the thread', thread_ts: top.ts, shown: true });
});

test('Socket Mode: a disconnect from Slack is followed by a reconnect; events flow again', async () => {
  const opened = fake.socket.opened;
  fake.socket.disconnectAll('warning');
  await fake.waitFor(() => fake.socket.opened > opened && fake.socket.connections === 1, 'reconnect');
  await platform.whenReady();
  const before = bridge.messages.length;
  await fake.userMessage({ channel: 'D0ANA', user: 'U0ANA', text: 'after reconnect' });
  const m = await bridge.waitFor(() => bridge.messages.length > before && bridge.messages.at(-1), 'message after reconnect');
  assert.equal(m.text, 'after reconnect');
});
