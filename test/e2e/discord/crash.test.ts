/**
 * kill -9 the bridge (its own process, its own group) on Discord mid-stream, mid-prompt and with
 * turns queued (one of them with a file); start it again on the same data: every reply is
 * finalized without Stop, the prompt shows expired without buttons, 👀 became ❌, the queued turns
 * run once and in order in their "queued" messages (the file fetched again from the CDN, its
 * link expired meanwhile and renewed through POST /attachments/refresh-urls), Run
 * again works for the author only, and nothing is posted twice. The real discord.js client in
 * the child talks to the fake gateway and REST on loopback.
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { conversationKey } from '../../../src/state/index.js';
import { FakeDiscord, type FakeAttachment, type FakeMessage } from '../../fakes/discord/index.js';
import { AGENT_PROFILE } from '../slack/turn-rig.js';
import { alive, crashWorld, untilReady } from '../crash-child.js';

const INTERRUPTED = 'interrupted: the bridge restarted';
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups) await c().catch(() => undefined);
});

const ALL_PARTS = Array.from({ length: 30 }, (_, i) => `part-${i + 1} `).join('').trimEnd();
const FILE = 'notes for the agent\n';
const customIds = (m: FakeMessage): string[] => m.components.flatMap((row) => row.components.map((c) => String(c.custom_id)));
const isPrompt = (m: FakeMessage): boolean => /^(🔐|✅ \*\*Allowed|⛔ \*\*Denied|⌛ \*\*)/u.test(m.content);
/** Stop, Allow/Deny, or a progress line: anything that says a process still serves it. */
const isLive = (m: FakeMessage): boolean => customIds(m).some((id) => !id.startsWith('tb:rerun:')) || m.content.includes('-# ⏳');

async function setup() {
  const fake = await new FakeDiscord().start();
  // The agent scripts of the Slack suite (hang, ask, echo, files) are platform-neutral.
  const env = { DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl, TURNBRIDGE_PROFILE: AGENT_PROFILE };
  const config = 'limits:\n  running_per_user: 10\n  waiting_per_user: 10\n';
  const world = await crashWorld(env, config);
  cleanups.push(world.cleanup, () => fake.stop());
  const { alice, bob } = fake.world.users;
  const general = fake.world.general.id;
  const mention = (text: string, channel = general, attachments?: FakeAttachment[]) =>
    fake.say(channel, alice!, text, { mention: true, ...(attachments ? { attachments } : {}) });
  const source = (m: FakeMessage) => `${m.channel_id}/${m.id}`;
  /** The thread a mention in #general started (the thread's id is the message's). */
  const threadOf = (m: FakeMessage) => fake.waitFor(() => fake.channels.get(m.id), 10_000, `the thread of ${m.content}`);
  const inThread = (m: FakeMessage) => fake.botMessages(m.id);
  return { ...world, fake, alice: alice!, bob: bob!, general, mention, source, threadOf, inThread };
}

describe('kill -9 with Discord', () => {
  it('restart finalizes everything, runs the queue once in order with its file, Run again works', async () => {
    const rig = await setup();
    const { fake, until, ledger, replyOf, source, mention, inThread } = rig;
    const first = rig.start();
    await untilReady(first);

    const a = mention('hang 30 30');
    const b = mention('ask');
    const c = mention('hang 2');
    const threadC = await rig.threadOf(c);
    // C's thread is the bot's: the queued follow-ups wait behind C's running turn.
    await until(async () => replyOf(await ledger(), source(c))?.turn === 'running', "C's turn running");
    const c1 = mention('echo one', threadC.id);
    const c2 = mention('echo two', threadC.id);
    const file = fake.addFile(threadC.id, 'notes.txt', FILE, 'text/plain');
    const c3 = mention('read this', threadC.id, [file]);
    const keyC = conversationKey('discord', { space: fake.world.guild.id, channel: rig.general, thread: threadC.id });

    await until(async () => {
      const recs = await ledger();
      const shownA = replyOf(recs, source(a))?.journal.parts.some((p) => p.content?.text.includes('part-30 '));
      const prompt = recs.some((r) => r.kind === 'prompt');
      const agents = rig.agents(recs).length === 3;
      const queued = await rig.state.queue.list(keyC);
      const withRefs = queued.find((q) => q.message.source?.id === source(c3))?.message.attachments.length === 1;
      const queuedShown = [c1, c2, c3].every((m) => replyOf(recs, source(m))?.journal.parts.some((p) => p.content?.status?.startsWith('queued')));
      const settledC = replyOf(recs, source(c))?.journal.parts.some((p) => p.content?.text.includes('part-2 '));
      return shownA && prompt && agents && queued.length === 3 && withRefs && queuedShown && settledC;
    }, 'the ledger to hold the stream, the prompt, 3 agents and 3 queued turns (one with a file ref)');
    const recs = await ledger();
    const pids = rig.agents(recs).map((r) => r.pid);
    const queuedMsgs = [c1, c2, c3].map((m) => replyOf(recs, source(m))!.journal.parts[0]!.ref.id.split('/')[1]!);
    const posted = fake.calls.filter((x) => x.route === 'POST /channels/:id/messages').length;

    await first.kill9();
    assert.ok(pids.filter(alive).length >= 2, 'the agents outlive the bridge');
    // The file's CDN address is all the state keeps: the first run's download is not used again.
    // A day passes on the CDN: the stored link has expired (404) and must be renewed.
    fake.advanceCdnClock(25 * 3600_000);
    const sinceKill = fake.calls.length;
    const second = rig.start();
    const ready = await untilReady(second);
    assert.ok(ready.platforms.some((p) => p.name === 'recovery' && p.state === 'ready'));
    for (const pid of pids) assert.equal(alive(pid), false, `agent ${pid} of the dead bridge was ended`);

    // A: finalized in place, interrupted, Run again only; 👀 became ❌.
    const replyA = inThread(a);
    assert.equal(replyA.length, 1, 'one reply message in thread A');
    assert.ok(replyA[0]!.content.startsWith(ALL_PARTS), `what was streamed is kept: ${replyA[0]!.content}`);
    assert.match(replyA[0]!.content, new RegExp(INTERRUPTED));
    assert.deepEqual(customIds(replyA[0]!).map((id) => id.split(':')[1]), ['rerun'], 'no Stop, only Run again');
    await fake.waitFor(() => fake.reactions.get(a.id)?.has('❌'), 10_000, 'the failure reaction on A');
    assert.equal(fake.reactions.get(a.id)!.has('👀'), false, '👀 removed');

    // B: the prompt shows expired with no buttons; B's reply finalized.
    const prompt = inThread(b).find(isPrompt)!;
    assert.ok(prompt, 'the prompt is there');
    assert.match(prompt.content, /Expired/);
    assert.deepEqual(prompt.components, [], 'no Allow/Deny left');
    assert.ok(inThread(b).some((m) => !isPrompt(m) && m.content.includes(INTERRUPTED)), "B's reply says it was interrupted");
    await fake.waitFor(() => fake.reactions.get(b.id)?.has('❌'), 10_000, 'the failure reaction on B');

    // C's queue: run once, in order, each in its own "queued" message; the file reached the agent.
    await fake.waitFor(() => [c1, c2, c3].every((m) => fake.reactions.get(m.id)?.has('✅')), 30_000, 'the queued turns answered');
    const [one, two, three] = queuedMsgs.map((id) => fake.messages.get(id)!);
    assert.equal(one!.content, 'echo: echo one');
    assert.equal(two!.content, 'echo: echo two');
    const sha = createHash('sha256').update(FILE).digest('hex');
    assert.equal(three!.content, `file notes.txt text/plain ${Buffer.byteLength(FILE)} ${sha}`);
    const cdn = fake.calls.slice(sinceKill).filter((x) => x.route.startsWith('GET /attachments/') || x.route === 'POST /attachments/refresh-urls').map((x) => `${x.method} ${x.status}`);
    assert.deepEqual(cdn, ['GET 404', 'POST 200', 'GET 200'], 'the expired link was refused, renewed, and the file fetched with the new one');
    const answeredAt = (id: string, text: string) => fake.calls.findIndex((x) => x.route === 'PATCH /channels/:id/messages/:id' && x.path.endsWith(`/${id}`) && String(x.body?.content).startsWith(text));
    assert.ok(answeredAt(one!.id, 'echo: echo one') < answeredAt(two!.id, 'echo: echo two'), 'one answered before two');
    assert.ok(answeredAt(two!.id, 'echo: echo two') < answeredAt(three!.id, 'file notes.txt'), 'two answered before three');
    const cMsgs = inThread(c);
    assert.equal(cMsgs.length, 4, `C's reply and the three queued ones, nothing twice: ${cMsgs.map((m) => m.content).join(' | ')}`);
    assert.match(cMsgs.find((m) => !queuedMsgs.includes(m.id))!.content, new RegExp(INTERRUPTED));
    assert.equal(fake.calls.filter((x) => x.route === 'POST /channels/:id/messages').length, posted, 'recovery posted nothing new: every message was reused');
    for (const m of [...fake.messages.values()].filter((x) => x.author.id === fake.world.bot.id)) {
      assert.equal(isLive(m), false, `no live message left: ${m.content} ${JSON.stringify(customIds(m))}`);
    }

    // Run again: bob is refused privately; alice re-runs A, the button goes, a new reply streams.
    const rerunId = customIds(replyA[0]!)[0]!;
    const refused = fake.click(replyA[0]!.id, rerunId, rig.bob);
    await fake.waitFor(() => refused.followUps.length > 0, 10_000, 'the refusal for bob');
    assert.match(refused.followUps[0]!.content, /Only/);
    assert.equal(refused.followUps[0]!.flags, 64, 'ephemeral');
    fake.click(replyA[0]!.id, rerunId, rig.alice);
    await fake.waitFor(() => fake.messages.get(replyA[0]!.id)!.components.length === 0
      && inThread(a).some((m) => m.id !== replyA[0]!.id && m.content.includes('part-1 ')), 15_000, 'the re-run reply');
    const again = fake.click(replyA[0]!.id, rerunId, rig.alice);
    await fake.waitFor(() => again.followUps.some((f) => /can no longer be run again|already being run again/.test(f.content)), 10_000, 'a second click is refused');

    await second.stop();
    if (process.env.TB_CRASH_LOG) console.log(second.output());
    for (const m of [...fake.messages.values()].filter((x) => x.author.id === fake.world.bot.id)) {
      assert.equal(isLive(m), false, `after SIGTERM no live message: ${m.content}`);
    }
  });
});
