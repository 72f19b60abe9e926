/**
 * kill -9 the bridge (its own process, its own group) mid-stream, mid-prompt and with turns
 * queued; start it again on the same data: every reply is finalized, no button is left live,
 * the queued turns run once and in order in their "queued" messages, Run again works, agents
 * left behind are ended, and the session reported right before the kill is resumed. The same
 * with native Slack streaming, and with a second kill during recovery.
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { after, describe, it } from 'node:test';
import type { LedgerRecord } from '../../../src/state/index.js';
import { BOT_USER, buttons, contextLines, FakeSlack, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { alive, crashWorld, untilReady } from '../crash-child.js';
import { AGENT_PROFILE } from './turn-rig.js';

const C = 'C0GEN';
const INTERRUPTED = 'interrupted: the bridge restarted';
/** Run here too, so that a failed test does not keep the run open. */
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups) await c().catch(() => undefined);
});

async function setup(streaming: 'edit' | 'native') {
  const fake = await FakeSlack.start({ timeScale: 20, users: { U0ANA: 'ana', U0BEN: 'ben' } });
  // One person starts every turn here: the per-person limits (docs/security.md) must let 4 run at once.
  const config = `limits:\n  running_per_user: 10\n  waiting_per_user: 10\nslack:\n  streaming: ${streaming}\n  rate_scale: 20\n  api_retries: 0\n  reconnect_base_ms: 50\n  reconnect_max_ms: 200\n`;
  const env = { SLACK_BOT_TOKEN: fake.botToken, SLACK_APP_TOKEN: fake.appToken, SLACK_API_URL: fake.apiUrl, TURNBRIDGE_PROFILE: AGENT_PROFILE };
  const world = await crashWorld(env, config);
  cleanups.push(world.cleanup, () => fake.close());
  const start = async () => world.start();
  const replyOf = (records: LedgerRecord[], ts: string) => world.replyOf(records, `${C}:${ts}`);
  const mention = (text: string, threadTs?: string, files?: Parameters<FakeSlack['userMessage']>[0]['files']) =>
    fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> ${text}`, ...(threadTs ? { threadTs } : {}), ...(files ? { files } : {}) });
  const thread = (ts: string): FakeMessage[] => fake.botMessages(C, ts);
  return { ...world, fake, start, replyOf, mention, thread };
}

type Rig = Awaited<ReturnType<typeof setup>>;
/** What a reply shows across its messages, streamed text included. */
const textOf = (msgs: FakeMessage[]): string => msgs.map((m) => (m.stream ? m.stream.markdown : visibleText(m))).join('');
const ALL_PARTS = Array.from({ length: 30 }, (_, i) => `part-${i + 1} `).join('');
const isLiveMsg = (m: FakeMessage): boolean =>
  buttons(m).some((b) => b.action_id !== 'tb_rerun') || contextLines(m).some((l) => l.includes(':hourglass_flowing_sand:')) || m.stream?.state === 'streaming';

/** Mid-stream (A), session reported (D), mid-prompt (B), a running turn with two queued behind it (C). */
async function crashScene(rig: Rig, streaming: 'edit' | 'native') {
  const { mention, until, ledger, replyOf, fake } = rig;
  // Long enough that a native stream start is always attempted (see native-stream.test.ts).
  const a = await mention('hang 30 30');
  // A's stream starts before the others ask for the same Tier 2 start budget: a start that waits
  // past its grace hands over late, or not at all once the edits showed everything (stream-lane.ts).
  if (streaming === 'native') await until(async () => replyOf(await ledger(), a.ts)?.journal.parts.some((p) => p.kind === 'stream'), "A's stream in the ledger");
  const d = await mention('hang 1');
  const b = await mention('ask');
  const c = await mention('hang 2');
  const c1 = await mention('echo one', c.ts);
  const c2 = await mention('echo two', c.ts);
  await until(async () => {
    const recs = await ledger();
    const ra = replyOf(recs, a.ts);
    const shown = streaming === 'native'
      ? ra?.journal.parts.some((p) => p.kind === 'stream') && textOf(fake.botMessages(C, a.ts)).includes('part-30 ')
      : ra?.journal.parts.some((p) => p.content?.text.includes('part-30 '));
    // the prompt, and B's reply continued below it (what the bridge records once the post landed)
    const promptRec = recs.find((r) => r.kind === 'prompt');
    const tsOf = (id: string) => Number(id.split(':')[1]);
    const prompt = promptRec && replyOf(recs, b.ts)?.journal.parts.some((p) => tsOf(p.ref.id) > tsOf(promptRec.ref.id));
    const agents = recs.filter((r) => r.kind === 'agent').length === 4;
    const queued = (await rig.state.queue.list(`slack:T0FAKE:${C}:${encodeURIComponent(c.ts)}`)).length === 2;
    const queuedShown = [c1, c2].every((m) => replyOf(recs, m.ts)?.journal.parts.some((p) => p.content?.status?.startsWith('queued')));
    const session = await rig.state.sessions.get(`slack:T0FAKE:${C}:${encodeURIComponent(d.ts)}`);
    // D's and C's whole answers are recorded as shown (edits or a stream): a stream start still
    // waiting for its budget would start after this, and could land just before the kill unrecorded.
    const settled = ([[d, 'part-1 '], [c, 'part-2 ']] as const).every(([m, last]) =>
      replyOf(recs, m.ts)?.journal.parts.some((p) => p.kind === 'stream' || p.content?.text.includes(last)));
    return shown && prompt && agents && queued && queuedShown && session && settled;
  }, 'the ledger to hold the stream, the prompt, 4 agents, 2 queued turns and the session');
  const recs = await ledger();
  const pids = rig.agents(recs).map((r) => r.pid);
  const queuedMsgs = [c1, c2].map((m) => replyOf(recs, m.ts)!.journal.parts[0]!.ref.id.split(':')[1]!);
  const session = (await rig.state.sessions.get(`slack:T0FAKE:${C}:${encodeURIComponent(d.ts)}`))!.session_id;
  return { a, b, c, c1, c2, d, pids, queuedMsgs, session };
}

async function assertConverged(rig: Rig, scene: Awaited<ReturnType<typeof crashScene>>, streaming: 'edit' | 'native') {
  const { fake, thread } = rig;
  const { a, b, c, c1, c2, pids, queuedMsgs } = scene;
  for (const pid of pids) assert.equal(alive(pid), false, `agent ${pid} of the dead bridge was ended`);

  // A: finalized, interrupted, Run again for the author; 👀 became the failure reaction.
  const partsA = thread(a.ts);
  if (streaming === 'native') {
    const streamed = partsA.find((m) => m.stream);
    assert.ok(streamed, 'A streamed');
    assert.equal(streamed.stream!.state, 'stopped', 'the native stream was stopped');
  }
  assert.equal(textOf(partsA).replace(/\s+$/, ''), ALL_PARTS.trimEnd(), 'the answer shown before the kill is kept, once');
  const withStatus = partsA.find((m) => contextLines(m).some((l) => l.includes(INTERRUPTED)));
  assert.ok(withStatus, `A says "${INTERRUPTED}"`);
  assert.deepEqual(buttons(withStatus).map((x) => x.action_id), ['tb_rerun'], 'no Stop, only Run again');
  assert.ok(fake.message(C, a.ts)!.reactions.has('x'), 'failure reaction');
  assert.equal(fake.message(C, a.ts)!.reactions.has('eyes'), false, '👀 removed');

  // B: the prompt shows expired, no buttons; its reply finalized.
  const prompt = thread(b.ts).find((m) => visibleText(m).includes('Bash') || m.blocks.some((bl) => String(bl.text?.text ?? '').startsWith(':lock:')))!;
  assert.ok(prompt, 'the prompt is there');
  assert.deepEqual(buttons(prompt), [], 'no Allow/Deny left');
  assert.match(JSON.stringify(prompt.blocks), /expired|restarted/i);

  // C: interrupted; the two queued turns ran once, in order, in their own "queued" messages.
  await fake.waitFor(() => [c1, c2].every((m) => fake.message(C, m.ts)!.reactions.has('white_check_mark')), 'the queued turns answered', 30_000);
  const [one, two] = queuedMsgs.map((ts) => fake.message(C, ts)!);
  assert.equal(visibleText(one), 'echo: echo one');
  assert.equal(visibleText(two), 'echo: echo two');
  const callIndex = (ts: string, text: string) => fake.calls.findIndex((x) => x.method === 'chat.update' && x.params.ts === ts && String(x.params.text).includes(text));
  const order = JSON.stringify(fake.calls.filter((x) => x.method === 'chat.update' && (x.params.ts === one!.ts || x.params.ts === two!.ts)).map((x) => [x.params.ts, x.params.text]));
  const firstRun = (ts: string) => fake.calls.findIndex((x) => x.method === 'chat.update' && x.params.ts === ts && !String(x.params.text).startsWith('queued'));
  assert.ok(firstRun(one!.ts) >= 0 && firstRun(one!.ts) < firstRun(two!.ts), `one started first: ${order}`);
  assert.ok(callIndex(one!.ts, 'echo: echo one') < callIndex(two!.ts, 'echo: echo two'), `one answered first: ${order}`);
  // C's reply is one message, or with native streaming its control message and a stream that may
  // have started late (below the queued messages): nothing in the thread but those and the queued two.
  const cMsgs = thread(c.ts);
  const shownC = `no duplicate replies in thread C: ${cMsgs.map((m) => textOf([m])).join(' | ')}`;
  const cReply = cMsgs.filter((m) => !queuedMsgs.includes(m.ts));
  assert.equal(cReply.filter((m) => !m.stream).length, 1, shownC);
  assert.ok(cReply.filter((m) => m.stream).length <= (streaming === 'native' ? 1 : 0), shownC);
  assert.ok(textOf(cReply).split('part-1 ').length <= 2, shownC);
  for (const m of fake.botMessages(C)) assert.equal(isLiveMsg(m), false, `no live message left: ${visibleText(m)} ${JSON.stringify(buttons(m))}`);
}

for (const streaming of ['edit', 'native'] as const) {
  describe(`kill -9 with Slack (${streaming === 'native' ? 'native streaming' : 'post + edit'})`, () => {
    it('restart finalizes everything, runs the queue once in order, Run again works, the session resumes', async () => {
      const rig = await setup(streaming);
      const first = await rig.start();
      await untilReady(first);
      const scene = await crashScene(rig, streaming);
      await first.kill9();
      // The "hang" agents outlive the bridge (the "ask" one may end itself once its stdin closes).
      assert.ok(scene.pids.filter(alive).length >= 3, 'the agents outlive the bridge');

      const second = await rig.start();
      const ready = await untilReady(second);
      assert.ok(ready.platforms.some((p) => p.name === 'recovery' && p.state === 'ready'));
      await assertConverged(rig, scene, streaming);

      // The session reported right before the kill is resumed (and the thread is still the bot's: no mention).
      const follow = await rig.fake.userMessage({ channel: C, user: 'U0ANA', text: 'session', threadTs: scene.d.ts });
      await rig.fake.waitFor(() => rig.fake.message(C, follow.ts)!.reactions.has('white_check_mark'), 'the session follow-up');
      assert.ok(rig.thread(scene.d.ts).some((m) => visibleText(m) === `session in=${scene.session}`), 'the next turn resumed the session');

      // Run again: only for the author; it re-runs the message and takes the button off.
      const withButton = rig.thread(scene.a.ts).find((m) => buttons(m).some((x) => x.action_id === 'tb_rerun'))!;
      const value = buttons(withButton)[0]!.value;
      await rig.fake.click({ user: 'U0BEN', actionId: 'tb_rerun', value, channel: C, messageTs: withButton.ts });
      await rig.fake.waitFor(() => rig.fake.ephemerals.some((e) => /Only @ana/.test(e.text)), 'the refusal for ben');
      const before = rig.thread(scene.a.ts).length;
      await rig.fake.click({ user: 'U0ANA', actionId: 'tb_rerun', value, channel: C, messageTs: withButton.ts });
      await rig.fake.waitFor(() => buttons(rig.fake.message(C, withButton.ts)).length === 0 && rig.thread(scene.a.ts).length > before
        && rig.thread(scene.a.ts).some((m) => m.ts > withButton.ts && (visibleText(m).includes('part-1') || m.stream?.markdown.includes('part-1'))), 'the re-run reply');
      await rig.fake.click({ user: 'U0ANA', actionId: 'tb_rerun', value, channel: C, messageTs: withButton.ts });
      await rig.fake.waitFor(() => rig.fake.ephemerals.some((e) => /can no longer be run again|already being run again/.test(e.text)), 'a second click is refused');

      await second.stop();
      // TB_CRASH_LOG=info shows the bridge's own log, with "recovery done" and its figures.
      if (process.env.TB_CRASH_LOG) console.log(second.output());
      for (const m of rig.fake.botMessages(C)) assert.equal(isLiveMsg(m), false, `after SIGTERM no live message: ${visibleText(m)}`);
    });
  });
}

describe('kill -9 during recovery', () => {
  it('a second kill while recovering still converges on the next start', async () => {
    const rig = await setup('edit');
    const first = await rig.start();
    await untilReady(first);
    const scene = await crashScene(rig, 'edit');
    await first.kill9();
    const mark = rig.fake.calls.length;
    const second = await rig.start();
    // Kill it as soon as recovery made its first edit.
    await rig.fake.waitFor(() => rig.fake.calls.slice(mark).some((x) => x.method === 'chat.update'), 'recovery started', 30_000);
    await second.kill9();
    const third = await rig.start();
    await untilReady(third);
    await assertConverged(rig, scene, 'edit');
    await third.stop();
  });
});

describe('kill -9 with a queued file (Slack)', () => {
  it('the queued turn gets its file after the restart, fetched again with the bot token', async () => {
    const rig = await setup('edit');
    const { fake, until, ledger, replyOf, mention } = rig;
    const first = await rig.start();
    await untilReady(first);
    const c = await mention('hang 2');
    await until(async () => replyOf(await ledger(), c.ts)?.turn === 'running', "C's turn running");
    const bytes = Buffer.from('the queued file survives\n');
    const file = fake.addFile('survivor.txt', 'text/plain', bytes);
    const q = await mention('read this', c.ts, [file]);
    const key = `slack:T0FAKE:${C}:${encodeURIComponent(c.ts)}`;
    const queued = await until(async () => {
      const items = await rig.state.queue.list(key);
      return replyOf(await ledger(), q.ts)?.journal.parts.some((p) => p.content?.status?.startsWith('queued')) && items[0];
    }, 'the queued turn with its file');
    // What the state keeps: the file's Slack address and id, never the token or a local path.
    assert.deepEqual(queued.message.attachments, [{ id: file.id, url: file.url_private_download, filename: 'survivor.txt', mimeType: 'text/plain', size: bytes.length }]);
    assert.equal(JSON.stringify(queued).includes(fake.botToken), false, 'no token in the state');
    const queuedMsg = replyOf(await ledger(), q.ts)!.journal.parts[0]!.ref.id.split(':')[1]!;
    const downloads = () => fake.calls.filter((x) => x.method === 'GET file' && String(x.params.path).includes(file.id));
    await first.kill9();
    const before = downloads().length;

    const second = await rig.start();
    await untilReady(second);
    const sha = createHash('sha256').update(bytes).digest('hex');
    await fake.waitFor(() => visibleText(fake.message(C, queuedMsg)!) === `file survivor.txt text/plain ${bytes.length} ${sha}`, 'the agent read the file', 30_000);
    await fake.waitFor(() => fake.message(C, q.ts)!.reactions.has('white_check_mark'), 'the success reaction', 10_000);
    const again = downloads().slice(before);
    assert.equal(again.length, 1, 'fetched once more after the restart');
    assert.equal(again[0]!.auth, 'bot', 'with the bot token (the host is Slack\'s)');
    await second.stop();
  });
});
