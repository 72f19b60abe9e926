/**
 * End to end: a person on the fake Slack -> real Bolt app -> real bridge core -> real agent
 * process -> live reply back on the fake, inside Slack's (time-scaled) rate limits.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOT_USER, buttons, contextLines, visibleText } from '../../fakes/slack/index.js';
import { DEMO_PROFILE, answerOf, makeTurnRig, type TurnRig } from './turn-rig.js';
import { bigText } from '../../fixtures/slack-agents/big-text.mjs';

const fences = (s: string): number => (s.match(/^\s*```/gm) ?? []).length;
const mention = (text: string): string => `<@${BOT_USER}> ${text}`;
const demoState = mkdtempSync(join(tmpdir(), 'tb-slack-demo-'));
process.env.DEMO_DELAY_MS = '5';
process.env.DEMO_STATE_DIR = demoState;

describe('slack turns (real Bolt + bridge + agents)', () => {
  let rig: TurnRig;
  /** Bot messages after the user's message, in thread order: answer text (trimmed), '[prompt]' for the prompt. */
  const chronology = (thread: string, promptTs: string, channel = 'C0GEN'): string[] =>
    rig.fake.botMessages(channel, thread).filter((m) => Number(m.ts) > Number(thread))
      .map((m) => (m.ts === promptTs ? '[prompt]' : visibleText(m).trim()));

  before(async () => {
    rig = await makeTurnRig({
      // the post + chat.update path (native streaming: native-stream.test.ts)
      slack: { max_attachment_bytes: 64 * 1024, streaming: 'edit' },
      config: {
        permissionTimeoutSecs: 3,
        routes: [{ platform: 'slack', channel: 'C0DEMO', profile: DEMO_PROFILE }],
      },
    });
  });
  after(async () => {
    await rig.close();
    rmSync(demoState, { recursive: true, force: true });
  });

  it('mention -> threaded streamed reply with the exact final text; thinking, Stop, reactions', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('stream 8 60 500') });
    const [reply, ...rest] = await rig.finalReply('C0GEN', ts, ts);
    assert.equal(rest.length, 0);
    assert.equal(reply!.thread_ts, ts, 'the reply is in the thread of the mention');
    assert.equal(visibleText(reply).trim(), 'part-1 part-2 part-3 part-4 part-5 part-6 part-7 part-8');
    assert.ok(reply!.history.length >= 2, `edited live (${reply!.history.length} versions)`);
    assert.ok(reply!.history.some((h) => buttons(h).some((b) => b.action_id === 'tb_stop')), 'a Stop button while running');
    assert.deepEqual(buttons(reply), [], 'no buttons at the end');
    assert.ok(reply!.history.some((h) => contextLines(h).some((l) => l.includes('Thinking about it'))), 'thinking shown as a context line');
    assert.ok(!visibleText(reply).includes('Thinking'), 'thinking is not part of the answer');
    await fake.waitFor(() => fake.message('C0GEN', ts)!.reactions.has('white_check_mark'), 'the success reaction');
    assert.deepEqual([...fake.message('C0GEN', ts)!.reactions], ['white_check_mark']);
    assert.equal(fake.botMessages('C0GEN', '').length, 0, 'nothing posted at the top level of the channel');
  });

  it('DM -> reply at the top level of the DM; a failing agent gets the x reaction', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'D0ANA', user: 'U0ANA', text: 'hello *there*' });
    const [reply] = await rig.finalReply('D0ANA', '', ts);
    assert.equal(visibleText(reply), 'echo: hello *there*');
    assert.equal(reply!.thread_ts, undefined);
    const failed = await fake.userMessage({ channel: 'D0ANA', user: 'U0ANA', text: 'fail' });
    const [r2] = await rig.finalReply('D0ANA', '', failed.ts);
    assert.match(visibleText(r2), /starting… [\s\S]*the fixture failed on purpose/);
    await fake.waitFor(() => fake.message('D0ANA', failed.ts)!.reactions.has('x'), 'the failure reaction');
    assert.ok(fake.message('D0ANA', ts)!.reactions.has('white_check_mark'));
  });

  it('a thread follow-up without a mention continues the agent session', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('session') });
    const [r1] = await rig.finalReply('C0GEN', ts, ts);
    assert.equal(visibleText(r1), 'session in=(none)');
    const follow = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'session', threadTs: ts });
    const [r2] = await rig.finalReply('C0GEN', ts, follow.ts);
    assert.match(visibleText(r2), /^session in=sess-[0-9a-f]+$/);
    // `new` as the whole message starts over; the next turn has no session
    const reset = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'new', threadTs: ts });
    await fake.waitFor(() => rig.replies('C0GEN', ts).some((m) => Number(m.ts) > Number(reset.ts)), 'the reset acknowledgement');
    const third = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'session', threadTs: ts });
    const [r3] = await rig.finalReply('C0GEN', ts, third.ts);
    assert.equal(visibleText(r3), 'session in=(none)');
  });

  it('permission: a stranger gets an ephemeral, the author allows, the prompt shows who decided', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('ask') });
    const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt');
    const [allow, thread, everyone, edit, deny, reason] = buttons(prompt);
    assert.deepEqual([allow, thread, everyone, edit, deny, reason].map((b) => [b!.action_id, b!.style]), [
      ['tb_allow', 'primary'], ['tb_allow_thread', undefined], ['tb_allow_thread_all', undefined], ['tb_edit', undefined], ['tb_deny', 'danger'], ['tb_deny_reason', undefined],
    ]);
    assert.equal(allow!.value, deny!.value);
    assert.ok(!allow!.value.includes('echo'), 'the button carries an opaque id, not the input');
    assert.match(JSON.stringify(prompt.blocks), /echo ok &gt; f\.txt/, "the input shown, escaped for mrkdwn");
    const ephemerals = fake.ephemerals.length;
    await fake.click({ user: 'U0BEN', userName: 'ben', actionId: 'tb_allow', value: allow!.value, channel: 'C0GEN', messageTs: prompt.ts });
    await fake.waitFor(() => fake.ephemerals.length > ephemerals, 'the ephemeral refusal');
    assert.equal(fake.ephemerals.at(-1)!.user, 'U0BEN');
    assert.equal(buttons(fake.message('C0GEN', prompt.ts)).length, 6, 'still pending');
    await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_allow', value: allow!.value, channel: 'C0GEN', messageTs: prompt.ts });
    await rig.finalReply('C0GEN', ts, ts);
    assert.deepEqual(chronology(ts, prompt.ts), ['Let me run a command.', '[prompt]', 'allowed: echo ok > f.txt'],
      'the answer before the prompt, the prompt, the answer after it');
    const decided = await rig.decidedPrompt('C0GEN', prompt.ts);
    assert.deepEqual(buttons(decided), []);
    assert.match(contextLines(decided).join(' '), /Allowed once by <@U0ANA>/);
    // a click on the same prompt after the turn ended only tells the clicker
    const before = fake.ephemerals.length;
    await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_deny', value: allow!.value, channel: 'C0GEN', messageTs: prompt.ts });
    await fake.waitFor(() => fake.ephemerals.length > before, 'the expired notice');
    assert.equal(fake.ephemerals.at(-1)!.user, 'U0ANA');
    assert.match(contextLines(fake.message('C0GEN', prompt.ts)).join(' '), /Allowed once by <@U0ANA>/, 'the decision stands');
  });

  it('permission: the author denies; an unanswered prompt times out to deny', async () => {
    const { fake } = rig;
    const a = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('ask') });
    const b = await fake.userMessage({ channel: 'C0GEN', user: 'U0BEN', text: mention('ask') });
    const pa = await fake.waitFor(() => rig.prompts('C0GEN', a.ts)[0], 'the first prompt');
    await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_deny', value: buttons(pa)[3]!.value, channel: 'C0GEN', messageTs: pa.ts });
    await rig.finalReply('C0GEN', a.ts, a.ts);
    const [before, p, after, ...more] = chronology(a.ts, pa.ts);
    assert.deepEqual([before, p, more], ['Let me run a command.', '[prompt]', []]);
    assert.match(after!, /^denied: /);
    // the prompt's update is paced through the edit budget: it may land after the final reply
    assert.match(contextLines(await rig.decidedPrompt('C0GEN', pa.ts)).join(' '), /Denied by <@U0ANA>/);
    // nobody answers the second prompt: it times out (3 s here) and the agent is denied
    await rig.finalReply('C0GEN', b.ts, b.ts);
    const pb = rig.prompts('C0GEN', b.ts)[0]!;
    const order = chronology(b.ts, pb.ts);
    assert.deepEqual(order.slice(0, 2), ['Let me run a command.', '[prompt]']);
    assert.match(order[2]!, /^denied: /);
    assert.equal(order.length, 3);
    assert.match(contextLines(await rig.decidedPrompt('C0GEN', pb.ts)).join(' '), /Timed out/);
  });

  it('Stop ends a running turn and says who stopped it', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('slow') });
    const live = await fake.waitFor(() => rig.replies('C0GEN', ts).find((m) => visibleText(m).includes('tick-2') && buttons(m).length), 'the Stop button with some text');
    await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_stop', value: buttons(live)[0]!.value, channel: 'C0GEN', messageTs: live.ts });
    const [reply] = await rig.finalReply('C0GEN', ts, ts);
    assert.match(visibleText(reply), /tick-2[\s\S]*stopped by @ana/);
    assert.ok(!visibleText(reply).includes('tick-400'));
  });

  it('`stop` typed in the thread stops the running turn', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0BEN', text: mention('slow') });
    await fake.waitFor(() => rig.replies('C0GEN', ts).find((m) => visibleText(m).includes('tick-2')), 'some ticks');
    await fake.userMessage({ channel: 'C0GEN', user: 'U0BEN', text: 'stop', threadTs: ts });
    const [reply] = await rig.finalReply('C0GEN', ts, ts);
    assert.match(visibleText(reply), /tick-2[\s\S]*stopped by @ben/);
  });

  it('a 12,000-character reply is split into parts under the limit with every code fence intact', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('big') });
    const parts = await rig.finalReply('C0GEN', ts, ts);
    assert.ok(parts.length >= 4, `${parts.length} parts`);
    for (const p of parts) {
      const t = visibleText(p);
      assert.ok(t.length <= 3500, `part of ${t.length} chars`);
      assert.equal(fences(t) % 2, 0, `balanced fences in:\n${t.slice(0, 200)}…`);
    }
    const all = answerOf(parts);
    const expected = bigText();
    const norm = (s: string): string => s.split('\n').filter((l) => !l.trim().startsWith('```')).join('\n').replace(/\s+/g, ' ').trim();
    assert.equal(norm(all), norm(expected));
    assert.ok(all.trim().endsWith('THE END'));
  });

  it('an image-only message reaches the agent as a file:// attachment with the right bytes', async () => {
    const { fake } = rig;
    const bytes = Buffer.from('89504e470d0a1a0a' + 'ab'.repeat(300), 'hex');
    const file = fake.addFile('shot.png', 'image/png', bytes);
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}>`, files: [file] });
    const [reply] = await rig.finalReply('C0GEN', ts, ts);
    const sha = createHash('sha256').update(bytes).digest('hex');
    assert.equal(visibleText(reply), `image shot.png image/png ${bytes.length} ${sha}`);
  });

  it('a file over the size limit is skipped and the reply says why', async () => {
    const { fake } = rig;
    const small = fake.addFile('notes.txt', 'text/plain', Buffer.from('short notes'));
    const big = fake.addFile('dump.bin', 'application/octet-stream', Buffer.alloc(70 * 1024, 7));
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}>`, files: [small, big] });
    const [reply] = await rig.finalReply('C0GEN', ts, ts);
    const sha = createHash('sha256').update('short notes').digest('hex');
    assert.match(visibleText(reply), new RegExp(`^file notes\\.txt text/plain 11 ${sha}`));
    assert.match(visibleText(reply), /Skipped dump\.bin: 70 KB is over the 64 KB limit\./);
  });

  it('a redelivered event runs one turn', async () => {
    const { fake } = rig;
    const ts = fake.nextTs();
    const ev = { type: 'app_mention', user: 'U0ANA', text: mention('echo once'), ts, channel: 'C0GEN', event_ts: ts };
    fake.state.messages.set(`C0GEN:${ts}`, { channel: 'C0GEN', ts, user: 'U0ANA', text: ev.text, blocks: [], history: [], reactions: new Set() });
    await fake.sendEvent(ev, { eventId: 'EvREDELIVER' });
    await fake.sendEvent(ev, { eventId: 'EvREDELIVER', retryAttempt: 1 });
    await fake.sendEvent({ ...ev, type: 'message', channel_type: 'channel' });
    await rig.finalReply('C0GEN', ts, ts);
    // a later turn in a DM finishing proves the redelivered envelopes were handled by now
    const marker = await fake.userMessage({ channel: 'D0BEN', user: 'U0BEN', text: 'marker' });
    await rig.finalReply('D0BEN', '', marker.ts);
    assert.equal(rig.replies('C0GEN', ts).length, 1);
  });

  it('the demo profile: streamed reply, permission allowed, session saved', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0DEMO', user: 'U0ANA', text: mention('hello demo') });
    const prompt = await fake.waitFor(() => rig.prompts('C0DEMO', ts)[0], 'the demo prompt');
    await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_allow', value: buttons(prompt)[0]!.value, channel: 'C0DEMO', messageTs: prompt.ts });
    await rig.finalReply('C0DEMO', ts, ts);
    const order = chronology(ts, prompt.ts, 'C0DEMO');
    assert.equal(order.indexOf('[prompt]'), 1, 'the answer so far, then the prompt, then the rest');
    assert.match(order[0]!, /^This is turn 1 of session demo-[0-9a-f]{16}\.\nYou said: hello demo/);
    assert.match(order.slice(2).join('\n'), /Permission granted: ran `date`/);
  });

  it('10 concurrent conversations in one workspace: zero 429s and every final text exact', async () => {
    const { fake } = rig;
    const before429 = fake.rateLimitedCount;
    const started = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      fake.userMessage({ channel: `C0LOAD${i % 3}`, user: i % 2 ? 'U0ANA' : 'U0BEN', text: mention(`stream 15 40`) })));
    const finals = await Promise.all(started.map(({ ts }, i) => rig.finalReply(`C0LOAD${i % 3}`, ts, ts, { timeoutMs: 45_000 })));
    for (const parts of finals) {
      assert.equal(parts.length, 1);
      assert.equal(visibleText(parts[0]).trim(), Array.from({ length: 15 }, (_, k) => `part-${k + 1}`).join(' '));
    }
    assert.equal(fake.rateLimitedCount - before429, 0, 'no 429 from the fake');
    // How many replies were edited depends on the machine: a reply whose post goes out after its
    // agent's result (a loaded machine) is posted final and needs no edit (and once the result
    // came, live edits wait for the final one: live-reply.ts outputEnded). What holds either way:
    // every chat.update in these channels went through and is a version of one of the replies.
    const updates = fake.callsTo('chat.update').filter((c) => /^C0LOAD\d$/.test(String(c.params.channel)));
    assert.ok(updates.every((c) => c.ok), 'every edit went through');
    const versions = finals.reduce((n, [m]) => n + m!.history.length - 1, 0);
    assert.equal(updates.length, versions, 'each edit shows in a reply, none went elsewhere');
    const postedLive = finals.filter(([m]) => m!.history.length > 1).length;
    console.log(`10 concurrent replies: ${postedLive} posted while running and edited (${updates.length} edits), ${10 - postedLive} posted final`);
  });
});
