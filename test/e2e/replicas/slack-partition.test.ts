/**
 * Fencing for takeover: a replica cut off from Redis (a TCP proxy in front of the real
 * redis-server, paused) longer than its heartbeat lifetime while it runs an agent and has turns
 * queued. Its lease lapses first (two thirds of the lifetime): it starts nothing more and ends its
 * agent, before its heartbeat key expires and a survivor may take its queued turns over. Each
 * queued turn's agent appends to its own log: every one ran exactly once, also after the cut-off
 * replica is back and recovers its own ledger.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LedgerRecord } from '../../../src/state/index.js';
import { startPausableTcpProxy, type PausableTcpProxy } from '../../fakes/pausable-tcp-proxy.js';
import { BOT_USER, FakeSlack } from '../../fakes/slack/index.js';
import { slackEnv } from '../slack/harness.js';
import { AGENT_PROFILE } from '../slack/turn-rig.js';
import { alive, killGroup, startReplicaSet, type ReplicaSet } from './replica-rig.js';

const C = 'C0PART';
const SCALE = 20;

describe('a replica cut off from Redis past its heartbeat lifetime', () => {
  let set: ReplicaSet;
  let fake: FakeSlack;
  const proxies: PausableTcpProxy[] = [];
  const pids: number[] = [];
  const logs = mkdtempSync(join(tmpdir(), 'tb-partition-'));

  before(async () => {
    fake = await FakeSlack.start({ timeScale: SCALE, users: { U0ANA: 'ana' } });
    fake.socket.spread = 'round-robin';
    set = await startReplicaSet({
      env: slackEnv(fake, { TURNBRIDGE_PROFILE: AGENT_PROFILE, TURNBRIDGE_MAX_CONCURRENT: '1', TURNBRIDGE_MAX_PROMPT_WAITS: '0', TURNBRIDGE_REPLICA_HEARTBEAT_MS: '3000' }),
      config: `limits:\n  running_per_user: 10\n  waiting_per_user: 20\nslack:\n  rate_scale: ${SCALE}\n  streaming: edit\n`,
    });
    // Each replica reaches Redis through a proxy of its own, so either can be cut off.
    for (let i = 0; i < 2; i++) proxies.push(await startPausableTcpProxy({ host: '127.0.0.1', port: set.redis.port }));
    await set.startReady(['p0', 'p1'], (_id, i) => ({ REDIS_URL: proxies[i]!.url }));
    await fake.waitFor(() => fake.socket.connections === 2, '2 Socket Mode connections', 30_000);
  });

  after(async () => {
    for (const p of proxies) p.resume();
    await set?.close();
    for (const pid of pids) killGroup(pid);
    for (const p of proxies) await p.close();
    await fake?.close();
    rmSync(logs, { recursive: true, force: true });
  });

  const mention = (text: string) => fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> ${text}` });
  const runs = (file: string): number => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l === '+').length : 0);

  it('ends its agent and starts nothing before a survivor runs its queued turns; each ran once', async () => {
    fake.socket.pin = 1; // connection numbers start at 1: everything below lands on one replica, the victim
    const a = await mention('hang 1');
    const victim = await set.until(async () => set.replyOf(await set.ledger(), `${C}:${a.ts}`)?.holder, 'the hanging reply in the ledger');
    const files = [1, 2, 3].map((i) => join(logs, `q${i}.log`));
    const queued: Array<{ ts: string }> = [];
    for (const f of files) queued.push(await mention(`record ${f} 300`));
    const recs = await set.until(async () => {
      const r = await set.ledger();
      const agent = r.some((x) => x.kind === 'agent' && x.holder === victim);
      const waiting = queued.every((m) => set.replyOf(r, `${C}:${m.ts}`)?.holder === victim);
      return agent && waiting && r;
    }, 'the victim to run the hanging agent with three turns queued behind it');
    const hangPid = recs.find((x): x is Extract<LedgerRecord, { kind: 'agent' }> => x.kind === 'agent' && x.holder === victim)!.pid;
    pids.push(hangPid);
    fake.socket.pin = undefined;
    const cut = Date.now();
    proxies[Number(victim.slice(1))]!.pause();

    // Its lease lapses (within 2 s) and it ends its agent, long before a survivor may act (the key
    // expires within 3 s, then the taker waits 6 s): nothing of the queue has run meanwhile.
    await set.until(() => !alive(hangPid), 'the cut-off replica ends its agent', 20_000);
    const endedAfterMs = Date.now() - cut;
    assert.deepEqual(files.map(runs), [0, 0, 0], `no queued turn ran before the takeover (agent ended after ${endedAfterMs} ms)`);
    assert.ok(endedAfterMs < 8_000, `the agent ended before a taker could act: ${endedAfterMs} ms`);

    // The survivor takes the queued turns over and runs them, each once, while the victim is still cut off.
    const ended = (f: string): boolean => existsSync(f) && readFileSync(f, 'utf8').includes('-');
    await set.until(() => files.every(ended) || undefined, 'the queued turns run by the survivor', 60_000);
    assert.deepEqual(files.map(runs), [1, 1, 1], 'each queued turn ran once');

    // Back: the victim holds its lease again and recovers its own ledger; nothing runs again.
    proxies[Number(victim.slice(1))]!.resume();
    await set.until(() => set.children.get(victim)!.output().includes('lease held again'), 'the victim\'s lease back', 30_000);
    await set.until(async () => (await set.ledger()).every((x) => x.holder !== victim) || undefined, 'nothing left under the victim', 30_000);
    const after = await mention('record ' + join(logs, 'after.log') + ' 10');
    await fake.waitFor(() => fake.message(C, after.ts)!.reactions.has('white_check_mark'), 'a new mention answered', 60_000);
    assert.deepEqual(files.map(runs), [1, 1, 1], 'still once each');
  });
});
