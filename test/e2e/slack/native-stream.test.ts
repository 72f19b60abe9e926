/**
 * Native Slack streaming end to end: real Bolt app + bridge + agent processes against the fake
 * Slack's chat.startStream / appendStream / stopStream (thread_ts and recipient required,
 * 12,000-character cap, Tier 2 / Tier 4 budgets), and the fallback to post + chat.update.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/log.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOT_USER, STREAM_MARKDOWN_LIMIT, TEAM, buttons, contextLines, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { answerOf, makeTurnRig, type TurnRig } from './turn-rig.js';

const mention = (text: string): string => `<@${BOT_USER}> ${text}`;
const fences = (s: string): number => (s.match(/^\s*```/gm) ?? []).length;
const parts = (n: number): string => Array.from({ length: n }, (_, k) => `part-${k + 1}`).join(' ');
const streamed = (m: FakeMessage | undefined): boolean => m?.stream !== undefined;
// Where a test needs a stream start to be attempted, the agent streams for a second or more: a
// reply that ends before its start is made is (correctly) written with edits instead, and on a
// loaded CI machine a 40 ms stream can end first.

/**
 * A long markdown answer with fenced code, streamed in small partials (written by the test). All
 * but its last words come at once; it waits for the file `go` beside it (the test writes it once
 * the reply shows that much) before the last words and its result: an answer that ends before
 * the reply caught up has (correctly) its rest posted with post + edit, which this case is not about.
 */
const longAgent = (go: string): string => `
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
const rl = createInterface({ input: process.stdin });
const it = rl[Symbol.asyncIterator]();
await it.next();
const out = (e) => new Promise((r) => process.stdout.write(JSON.stringify({ ...e, session_id: 'long-1' }) + '\\n', r));
const text = ${JSON.stringify(longText().slice(0, -LAST_WORDS.length))};
for (let i = 0; i < text.length; i += 400) {
  await out({ type: 'partial', text: text.slice(i, i + 400) });
  await new Promise((r) => setTimeout(r, 3));
}
while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 20));
await out({ type: 'partial', text: ${JSON.stringify(LAST_WORDS)} });
await out({ type: 'result', text: '' });
process.exit(0);
`;

const LAST_WORDS = 'THE END';

function longText(): string {
  let text = '# Long streamed answer\n\n';
  let block = 0;
  while (text.length < 23_000) {
    block++;
    text += `Paragraph ${block}: **bold** and _italic_ prose streamed a little at a time.\n\n`;
    text += '```ts\n';
    for (let i = 0; i < 14; i++) text += `const value_${block}_${i} = compute(${i}); // line ${i} of block ${block}\n`;
    text += '```\n\n';
  }
  return text + LAST_WORDS;
}
/** The comment of the last code line before LAST_WORDS ("line 13 of block N": unique, it names the last block). */
const lastLine = (): string => longText().split('\n').slice(-4, -3)[0]!.split('// ')[1]!;

const strip = (s: string): string => s.split('\n').filter((l) => !l.trim().startsWith('```')).join('\n').replace(/\s+/g, ' ').trim();

describe('slack native streaming (SLACK_STREAMING=native)', () => {
  let rig: TurnRig;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tb-slack-stream-'));
    writeFileSync(join(dir, 'agent.mjs'), longAgent(join(dir, 'go')));
    writeFileSync(join(dir, 'profile.yaml'), `command: node\nargs: ["{{PROFILE_DIR}}/agent.mjs"]\ntimeout_secs: 60\nstreaming: true\npermission: true\n`);
    rig = await makeTurnRig({
      slack: { streaming: 'native' },
      config: { routes: [{ platform: 'slack', channel: 'C0LONG', profile: join(dir, 'profile.yaml') }] },
    });
  });
  after(async () => {
    await rig.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('mention -> one streamed reply with the exact text, coalesced appends, a control message removed at the end, zero 429s', async () => {
    const { fake } = rig;
    const before429 = fake.rateLimitedCount;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('stream 30 15 300') });
    const final = await rig.finalReply('C0GEN', ts, ts);
    assert.equal(final.length, 1, 'one message: the control message is gone');
    const [reply] = final;
    assert.ok(streamed(reply), 'the answer was streamed');
    assert.equal(reply!.stream!.state, 'stopped');
    assert.equal(reply!.thread_ts, ts);
    assert.equal(visibleText(reply).trim(), parts(30));
    assert.deepEqual(buttons(reply), []);

    const starts = fake.callsTo('chat.startStream').filter((c) => c.params.thread_ts === ts);
    assert.equal(starts.length, 1);
    assert.equal(starts[0]!.params.recipient_user_id, 'U0ANA');
    assert.equal(starts[0]!.params.recipient_team_id, TEAM);
    assert.equal(starts[0]!.params.chunks, undefined, 'markdown_text mode only');
    const appends = fake.callsTo('chat.appendStream').filter((c) => c.params.ts === reply!.ts);
    assert.ok(appends.length >= 1 && appends.length < 29, `appends coalesced: ${appends.length} for 30 partials`);
    assert.equal(fake.callsTo('chat.stopStream').filter((c) => c.params.ts === reply!.ts).length, 1);
    assert.equal(fake.callsTo('chat.update').filter((c) => c.params.ts === reply!.ts).length, 0, 'never chat.update a stream');

    // the control message: posted first with status, thinking and Stop; deleted at the end
    const posted = fake.callsTo('chat.postMessage').filter((c) => c.params.thread_ts === ts);
    assert.equal(posted.length, 1);
    const controlTs = fake.state.deleted.map((k) => k.split(':')).find(([ch, t]) => ch === 'C0GEN' && Number(t) > Number(ts) && Number(t) < Number(reply!.ts))?.[1];
    assert.ok(controlTs, 'the control message was deleted');
    const controlVersions = [posted[0]!.params, ...fake.callsTo('chat.update').filter((c) => c.params.ts === controlTs).map((c) => c.params)];
    assert.ok(controlVersions.some((v) => buttons(v as never).some((b) => b.action_id === 'tb_stop')), 'Stop on the control message');
    assert.ok(controlVersions.some((v) => contextLines(v as never).some((l) => l.includes('Thinking about it'))), 'thinking as a muted line');
    assert.ok(!visibleText(reply).includes('Thinking'));
    assert.equal(fake.rateLimitedCount - before429, 0, 'no 429');
  });

  it('permission during a streamed reply: the stream ends above the prompt, the rest continues below it', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('ask') });
    const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt');
    await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_allow', value: buttons(prompt)[0]!.value, channel: 'C0GEN', messageTs: prompt.ts });
    await rig.finalReply('C0GEN', ts, ts);
    const thread = fake.botMessages('C0GEN', ts).filter((m) => Number(m.ts) > Number(ts));
    const order = thread.map((m) => (m.ts === prompt.ts ? '[prompt]' : visibleText(m).trim()));
    assert.deepEqual(order, ['Let me run a command.', '[prompt]', 'allowed: echo ok > f.txt'], 'answer before, prompt, answer after');
    const [before, , after] = thread;
    // the agent asks right after its first partial: the part above the prompt is the stream (stopped
    // there, its control message deleted) when the start was already made, else the control message
    // frozen with the text (the start, still waiting, was dropped)
    const deletedAbove = fake.state.deleted.some((k) => k.startsWith('C0GEN:') && Number(k.split(':')[1]) > Number(ts) && Number(k.split(':')[1]) < Number(prompt.ts));
    if (streamed(before)) {
      assert.equal(before!.stream!.state, 'stopped');
      assert.ok(deletedAbove, 'the control message above the prompt was deleted');
    } else {
      assert.ok(!deletedAbove);
      assert.equal(fake.callsTo('chat.startStream').filter((c) => c.params.thread_ts === ts).length, 0);
    }
    assert.deepEqual(buttons(before), [], 'nothing live above the prompt');
    assert.deepEqual(buttons(after), [], 'no Stop left once finished');
  });

  it('a top-level DM (no thread to stream into) uses post + edit; the text is exact', async () => {
    const { fake } = rig;
    const startsBefore = fake.callsTo('chat.startStream').length;
    const { ts } = await fake.userMessage({ channel: 'D0ANA', user: 'U0ANA', text: 'stream 5 10' });
    const [reply, ...rest] = await rig.finalReply('D0ANA', '', ts);
    assert.equal(rest.length, 0);
    assert.ok(!streamed(reply));
    assert.equal(visibleText(reply).trim(), parts(5));
    assert.equal(fake.callsTo('chat.startStream').length, startsBefore);
  });

  it('a long streamed reply continues in a second streamed message at a clean boundary, fences intact', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0LONG', user: 'U0ANA', text: mention('go') });
    // the agent ends once the reply shows all it wrote so far
    await fake.waitFor(() => rig.replies('C0LONG', ts).some((m) => visibleText(m).includes(lastLine())), 'the answer up to its last words', 45_000);
    writeFileSync(join(dir, 'go'), '');
    const final = await rig.finalReply('C0LONG', ts, ts, { timeoutMs: 45_000 });
    assert.ok(final.length >= 2, `${final.length} messages`);
    for (const m of final) {
      const t = visibleText(m);
      assert.ok(t.length <= STREAM_MARKDOWN_LIMIT, `a message of ${t.length} chars`);
      assert.equal(fences(t) % 2, 0, `balanced fences in:\n${t.slice(-200)}`);
    }
    // A first start that waited past its grace (a loaded machine) hands over: the control message
    // shows the first text and stays as the first part; the stream carries the rest.
    const streamedParts = streamed(final[0]) ? final : final.slice(1);
    assert.ok(streamedParts.length >= 2 && streamedParts.every(streamed), `every part streamed (but a handed-over first): ${final.map(streamed)}`);
    const got = strip(answerOf(final));
    const want = strip(longText());
    let i = 0;
    while (i < want.length && got[i] === want[i]) i++;
    assert.equal(i, want.length, `the answer differs at ${i} of ${want.length} (parts ${final.map((m) => visibleText(m).length)}): ${JSON.stringify(got.slice(i - 80, i + 80))} vs ${JSON.stringify(want.slice(i - 80, i + 80))}`);
    assert.equal(got.length, want.length, `extra at the end: ${JSON.stringify(got.slice(want.length - 40))}`);
    assert.ok(answerOf(final).trim().endsWith('THE END'));
    assert.equal(fake.calls.filter((c) => c.method.startsWith('chat.') && c.status === 429).length, 0);
  });

  it('Stop (on the control message) ends a streaming turn and says who stopped it', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0BEN', text: mention('slow') });
    await fake.waitFor(() => rig.replies('C0GEN', ts).find((m) => streamed(m) && visibleText(m).includes('tick-2')), 'streamed ticks');
    const control = rig.replies('C0GEN', ts).find((m) => buttons(m).some((b) => b.action_id === 'tb_stop'))!;
    assert.ok(control && !streamed(control), 'the Stop button is on the (non-streamed) control message');
    await fake.click({ user: 'U0BEN', userName: 'ben', actionId: 'tb_stop', value: buttons(control)[0]!.value, channel: 'C0GEN', messageTs: control.ts });
    const [reply, ...rest] = await rig.finalReply('C0GEN', ts, ts);
    assert.equal(rest.length, 0);
    assert.ok(streamed(reply));
    assert.match(visibleText(reply), /tick-2[\s\S]*stopped by @ben/);
    assert.ok(!visibleText(reply).includes('tick-400'));
    assert.equal(fake.message('C0GEN', control.ts), undefined, 'the control message is gone');
  });

  it('10 concurrent streamed replies in one workspace: zero 429s and every final text exact', async () => {
    const { fake } = rig;
    const before429 = fake.rateLimitedCount;
    const startsBefore = fake.callsTo('chat.startStream').length;
    const stopsBefore = fake.callsTo('chat.stopStream').length;
    const started = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      fake.userMessage({ channel: `C0LOAD${i % 3}`, user: i % 2 ? 'U0ANA' : 'U0BEN', text: mention('stream 15 150') })));
    const finals = await Promise.all(started.map(({ ts }, i) => rig.finalReply(`C0LOAD${i % 3}`, ts, ts, { timeoutMs: 45_000 })));
    for (const f of finals) {
      // one message, or (a start that waited for Tier 2 budget, handed over late) the part shown
      // through edits, then the stream with the rest: never the same text twice
      assert.ok(f.length === 1 || (f.length === 2 && !streamed(f[0]) && streamed(f[1])), `${f.length} messages`);
      assert.equal(f.map((m) => visibleText(m)).join('').replace(/\s+/g, ' ').trim(), parts(15));
    }
    assert.equal(fake.rateLimitedCount - before429, 0, 'no 429 from the fake');
    // Tier 2 paces the starts; a reply that finishes before its start's turn is written with one
    // edit instead (its start is dropped), so every start made is a streamed reply, stopped once.
    const starts = fake.callsTo('chat.startStream').length - startsBefore;
    const streamedReplies = finals.filter((f) => f.some(streamed)).length;
    assert.ok(streamedReplies >= 1, 'some replies streamed');
    assert.equal(starts, streamedReplies);
    assert.equal(fake.callsTo('chat.stopStream').length - stopsBefore, streamedReplies);
  });
});

describe('slack streaming fallback (SLACK_STREAMING=auto)', () => {
  let rig: TurnRig;
  before(async () => {
    rig = await makeTurnRig({ slack: { streaming: 'auto' } });
  });
  after(async () => {
    await rig.close();
  });

  it('a channel where streaming is not supported falls back there only; the text is exact', async () => {
    const { fake } = rig;
    fake.refuseStreaming('channel_type_not_supported');
    const a = await fake.userMessage({ channel: 'C0PRIV', user: 'U0ANA', text: mention('stream 6 250') });
    const [ra] = await rig.finalReply('C0PRIV', a.ts, a.ts);
    assert.equal(visibleText(ra).trim(), parts(6));
    assert.ok(!streamed(ra));
    assert.equal(fake.callsTo('chat.startStream').length, 1);
    fake.refuseStreaming(undefined);
    const b = await fake.userMessage({ channel: 'C0PRIV', user: 'U0ANA', text: mention('stream 4 10') });
    const [rb] = await rig.finalReply('C0PRIV', b.ts, b.ts);
    assert.equal(visibleText(rb).trim(), parts(4));
    assert.equal(fake.callsTo('chat.startStream').length, 1, 'not tried again in that channel');
    const c = await fake.userMessage({ channel: 'C0OPEN', user: 'U0ANA', text: mention('stream 4 400') });
    const [rc] = await rig.finalReply('C0OPEN', c.ts, c.ts);
    assert.ok(streamed(rc), 'another channel still streams');
    assert.equal(visibleText(rc).trim(), parts(4));
  });

  it('unknown_method falls back to post + edit for the workspace and is not retried on the next reply', async () => {
    const { fake } = rig;
    fake.refuseStreaming('unknown_method');
    const before = fake.callsTo('chat.startStream').length;
    const a = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('stream 8 200') });
    const [ra, ...rest] = await rig.finalReply('C0GEN', a.ts, a.ts);
    assert.equal(rest.length, 0);
    assert.ok(!streamed(ra), 'posted and edited');
    assert.equal(visibleText(ra).trim(), parts(8));
    assert.ok(ra!.history.length >= 2, 'edited live');
    assert.equal(fake.callsTo('chat.startStream').length - before, 1, 'tried once');
    fake.refuseStreaming(undefined);
    const b = await fake.userMessage({ channel: 'C0OTHER', user: 'U0BEN', text: mention('stream 5 10') });
    const [rb] = await rig.finalReply('C0OTHER', b.ts, b.ts);
    assert.equal(visibleText(rb).trim(), parts(5));
    assert.ok(!streamed(rb));
    assert.equal(fake.callsTo('chat.startStream').length - before, 1, 'not tried again in this workspace');
    assert.equal(fake.rateLimitedCount, 0);
  });
});

describe('slack streaming refused in SLACK_STREAMING=native', () => {
  const lines: string[] = [];
  let rig: TurnRig;
  before(async () => {
    const destination = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
    rig = await makeTurnRig({ slack: { streaming: 'native' }, logger: createLogger({ level: 'info', destination }) });
  });
  after(async () => {
    await rig.close();
  });

  it('the refusal is logged as an error on every reply, never remembered, and the text still lands', async () => {
    const { fake } = rig;
    fake.refuseStreaming('not_allowed');
    const a = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('stream 3 500') });
    const [ra] = await rig.finalReply('C0GEN', a.ts, a.ts);
    assert.equal(visibleText(ra).trim(), parts(3));
    const first = fake.callsTo('chat.startStream').length;
    assert.ok(first >= 1);
    const errors = (): string[] => lines.filter((l) => l.includes('"level":50') || l.includes('"level":"error"'));
    assert.ok(errors().some((l) => l.includes('SLACK_STREAMING=native')), 'an error names the setting');
    assert.ok(!lines.join('').includes(fake.botToken), 'no token in the logs');
    const b = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('stream 2 800') });
    const [rb] = await rig.finalReply('C0GEN', b.ts, b.ts);
    assert.equal(visibleText(rb).trim(), parts(2));
    assert.ok(fake.callsTo('chat.startStream').length > first, 'native mode tries again on the next reply');
  });
});
