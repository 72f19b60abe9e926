/**
 * Three replicas in Slack HTTP mode (Events API + interactivity POSTed to one Request URL) behind
 * one port: a round-robin proxy in front of the replicas' HTTP servers, on one real redis-server.
 * Mentions over several threads are answered once and in order per thread, Allow clicks decide
 * their prompts wherever they land, and kill -9 of one replica mid-turn leaves nothing stuck: a
 * survivor finalizes its reply and runs its queued turns once; the proxy skips the dead one.
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { TAKEN_OVER_MESSAGE } from '../../../src/bridge/turns/recovery.js';
import { BOT_USER, FakeSlack, buttons, contextLines, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../fakes/round-robin-proxy.js';
import { AGENT_PROFILE, isFinal, isPrompt } from '../slack/turn-rig.js';
import { killGroup, startReplicaSet, type ReplicaSet } from './replica-rig.js';

const C = 'C0HTTP';
const SCALE = 20;
const SECRET = 'replicas-signing-secret';
const says = (m: FakeMessage, text: string): boolean => contextLines(m).some((l) => l.includes(text)) || visibleText(m).includes(text);
const isLive = (m: FakeMessage): boolean =>
  buttons(m).some((b) => b.action_id !== 'tb_rerun') || contextLines(m).some((l) => l.includes(':hourglass_flowing_sand:'));

describe('three replicas in Slack HTTP mode behind one port', () => {
  let set: ReplicaSet;
  let fake: FakeSlack;
  let proxy: RoundRobinProxy;
  const urls = new Map<string, string>();
  const pids: number[] = [];

  before(async () => {
    fake = await FakeSlack.start({ timeScale: SCALE, users: { U0ANA: 'ana', U0BEN: 'ben' } });
    set = await startReplicaSet({
      env: {
        SLACK_BOT_TOKEN: fake.botToken, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: fake.apiUrl, TURNBRIDGE_PROFILE: AGENT_PROFILE,
        TURNBRIDGE_MAX_CONCURRENT: '2', TURNBRIDGE_MAX_PROMPT_WAITS: '0', TURNBRIDGE_REPLICA_HEARTBEAT_MS: '1500',
      },
      config: `limits:\n  running_per_user: 10\n  waiting_per_user: 30\nslack:\n  rate_scale: ${SCALE}\n  streaming: edit\n`,
    });
    await set.startReady(['h0', 'h1', 'h2']);
    for (const [id, c] of set.children) urls.set(id, await c.url);
    proxy = await startRoundRobinProxy([...urls.values()]);
    fake.http = { url: `${proxy.url}slack/events`, secret: SECRET };
  });

  after(async () => {
    await set?.close();
    for (const pid of pids) killGroup(pid);
    await proxy?.close();
    await fake?.close();
  });

  const mention = (text: string, threadTs?: string, user = 'U0ANA') => fake.userMessage({ channel: C, user, text: `<@${BOT_USER}> ${text}`, ...(threadTs ? { threadTs } : {}) });
  const replies = (thread: string) => fake.botMessages(C, thread).filter((m) => !isPrompt(m));

  it('9 mentions over 3 threads: each answered once, in order per thread; Allow clicks decide wherever they land', async () => {
    const roots = await Promise.all([0, 1, 2].map(() => mention('session')));
    const threads = roots.map((r) => r.ts);
    await fake.waitFor(() => threads.every((t) => fake.botMessages(C, t).length > 0), 'every root accepted', 60_000);
    for (let round = 0; round < 2; round++) {
      for (const t of threads) await mention('session', t, 'U0BEN');
      await fake.waitFor(() => threads.every((t) => replies(t).length >= round + 2), 'the follow-ups accepted', 60_000);
    }
    await fake.waitFor(() => threads.every((t) => replies(t).length >= 3 && replies(t).every(isFinal)), 'three final replies per thread', 120_000);
    for (const t of threads) {
      const texts = replies(t).map((m) => visibleText(m).trim());
      assert.equal(texts.length, 3, `one reply per mention: ${JSON.stringify(texts)}`);
      assert.equal(texts[0], 'session in=(none)');
      assert.match(texts[1]!, /^session in=sess-[0-9a-f]+$/);
      assert.equal(texts[2], texts[1], 'the session kept, in order');
    }
    assert.equal(new Set(proxy.served).size, 3, 'requests reached all three replicas');

    const asks = await Promise.all([0, 1, 2].map(() => mention('ask')));
    for (const { ts } of asks) {
      const prompt = await fake.waitFor(() => fake.botMessages(C, ts).find(isPrompt), 'the prompt', 60_000);
      const allow = buttons(prompt).find((b) => b.action_id === 'tb_allow')!;
      await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_allow', value: allow.value, channel: C, messageTs: prompt.ts });
    }
    for (const { ts } of asks) {
      await fake.waitFor(() => replies(ts).some((m) => isFinal(m) && visibleText(m).includes('allowed: echo ok > f.txt')), 'the allowed answer', 60_000);
    }
    assert.deepEqual(fake.calls.filter((c) => c.status === 429).map((c) => c.method), [], 'no 429');
  });

  it('kill -9 one replica mid-turn: a survivor finalizes its reply and runs its queued turns once', async () => {
    const [victim, target] = [...urls][0]!;
    proxy.pin = target;
    const a = await mention('hang 2');
    const b = await mention('hang 2');
    const q1 = await mention('echo h1');
    const q2 = await mention('echo h2', a.ts);
    const queued = [q1, q2];
    const recs = await set.until(async () => {
      const r = await set.ledger();
      const streamed = [a, b].every((m) => set.replyOf(r, `${C}:${m.ts}`)?.journal.parts.some((p) => p.content?.text.includes('part-2')));
      const waiting = queued.every((m) => set.replyOf(r, `${C}:${m.ts}`)?.journal.parts.some((p) => p.content?.status?.startsWith('queued')));
      return streamed && waiting && r.filter((x) => x.kind === 'agent' && x.holder === victim).length === 2 && r;
    }, 'two hanging turns and two queued on the victim');
    assert.ok([a, b, q1, q2].every((m) => set.replyOf(recs, `${C}:${m.ts}`)!.holder === victim), 'all four are the victim\'s');
    pids.push(...recs.flatMap((x) => (x.kind === 'agent' ? [x.pid] : [])));
    const queuedMsgs = queued.map((m) => set.replyOf(recs, `${C}:${m.ts}`)!.journal.parts[0]!.ref.id.split(':')[1]!);
    proxy.pin = undefined;
    await set.children.get(victim)!.kill9();

    await fake.waitFor(() => queued.every((m) => fake.message(C, m.ts)!.reactions.has('white_check_mark')), 'the queued turns answered', 60_000);
    queued.forEach((m, i) => {
      const text = `echo: echo h${i + 1}`;
      assert.equal(visibleText(fake.message(C, queuedMsgs[i]!)!).trim(), text, 'answered in its queued message');
      assert.equal(fake.botMessages(C).filter((x) => visibleText(x).trim() === text).length, 1, 'answered once');
    });
    for (const m of [a, b]) {
      await fake.waitFor(() => fake.message(C, m.ts)!.reactions.has('x'), 'the failure reaction', 30_000);
      assert.ok(fake.botMessages(C, m.ts).some((x) => says(x, TAKEN_OVER_MESSAGE)), `the hanging reply says "${TAKEN_OVER_MESSAGE}"`);
    }
    for (const m of fake.botMessages(C)) assert.equal(isLive(m), false, `no live message left: ${visibleText(m)}`);
    // Events keep flowing through the one port with a replica gone.
    const after = await mention('echo still here');
    await fake.waitFor(() => fake.message(C, after.ts)!.reactions.has('white_check_mark'), 'a new mention answered', 60_000);
  });
});
