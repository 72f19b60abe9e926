/**
 * Replicas benchmark: 1 vs 3 turnbridge replicas (separate `npm start` processes) on one real
 * redis-server and one Slack app (the fake Slack in Socket Mode, handing events to the
 * connections in turn, enforcing Slack's budgets). The same burst of streamed turns in distinct
 * threads goes to both set-ups; each replica may run TURNBRIDGE_MAX_CONCURRENT agents.
 * Time is scaled (fake windows / SCALE, bridge budgets x SCALE), so budget use is what Slack
 * would see; the agents run in real time.
 *
 * Prints turns per minute, chat.update calls vs the workspace budget over the run (the replicas
 * share one budget through Redis), 429s and the first-text latency, for 1 and 3 replicas, and
 * 3 : 1 as ratios.
 *
 *   npx tsx bench/replicas.bench.ts      (REPLICAS_BENCH_TURNS=18, REPLICAS_BENCH_CAP=3)
 */
import { join } from 'node:path';
import { BOT_USER, FakeSlack } from '../test/fakes/slack/index.js';
import { untilReady } from '../test/e2e/crash-child.js';
import { startReplicaSet } from '../test/e2e/replicas/replica-rig.js';
import { printTable } from './lib/table.js';

const SCALE = 20;
const TURNS = Number(process.env.REPLICAS_BENCH_TURNS ?? 18);
const CAP = Number(process.env.REPLICAS_BENCH_CAP ?? 3);
/** 20 partials 100 ms apart: a 2-second streamed answer. */
const SCRIPT = 'stream 20 100';
const PROFILE = join(process.cwd(), 'test/fixtures/slack-agents/profile.yaml');

interface Result {
  replicas: number;
  seconds: number;
  turnsPerMin: number;
  updates: number;
  budget: number;
  rateLimited: number;
  firstTextMs: number[];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;

async function run(replicas: number): Promise<Result> {
  const fake = await FakeSlack.start({ timeScale: SCALE, users: { U0ANA: 'ana' } });
  fake.socket.spread = 'round-robin';
  const set = await startReplicaSet({
    env: {
      SLACK_BOT_TOKEN: fake.botToken, SLACK_APP_TOKEN: fake.appToken, SLACK_API_URL: fake.apiUrl, TURNBRIDGE_PROFILE: PROFILE,
      TURNBRIDGE_MAX_CONCURRENT: String(CAP),
    },
    config: `limits:\n  running_per_user: ${TURNS}\n  waiting_per_user: ${TURNS}\n  waiting: ${TURNS * 2}\nslack:\n  rate_scale: ${SCALE}\n  streaming: edit\n`,
  });
  try {
    for (let i = 0; i < replicas; i++) set.start(`bench-${i}`);
    for (const c of set.children.values()) await untilReady(c, 60_000);
    await fake.waitFor(() => fake.socket.connections === replicas, 'every replica connected', 30_000);
    const mark = fake.calls.length;
    const limitedBefore = fake.rateLimitedCount;
    const started = performance.now();
    const sent = await Promise.all(Array.from({ length: TURNS }, async (_, i) => {
      const at = Date.now();
      const m = await fake.userMessage({ channel: `C0RB${i % 6}`, user: 'U0ANA', text: `<@${BOT_USER}> ${SCRIPT}` });
      return { ...m, channel: `C0RB${i % 6}`, at };
    }));
    await fake.waitFor(() => sent.every((m) => fake.message(m.channel, m.ts)?.reactions.has('white_check_mark')), 'every turn answered', 300_000);
    const seconds = (performance.now() - started) / 1000;
    const calls = fake.calls.slice(mark);
    // First text: the first post or edit in the turn's thread that shows agent output.
    const firstTextMs = sent.map((m) => {
      const mine = new Set(fake.botMessages(m.channel, m.ts).map((b) => b.ts));
      const first = calls.find((c) => c.status === 200 && String(c.params.text ?? '').includes('part-')
        && ((c.method === 'chat.postMessage' && c.params.thread_ts === m.ts) || (c.method === 'chat.update' && mine.has(String(c.params.ts)))));
      return first ? first.at - m.at : NaN;
    });
    const updates = calls.filter((c) => c.method === 'chat.update' && c.status === 200).length;
    const slackMinutes = (seconds * SCALE) / 60;
    return {
      replicas, seconds, turnsPerMin: TURNS / (seconds / 60), updates, budget: Math.round(50 * slackMinutes),
      rateLimited: fake.rateLimitedCount - limitedBefore, firstTextMs,
    };
  } finally {
    await set.close();
    await fake.close();
  }
}

console.log(`${TURNS} streamed turns ("${SCRIPT}", distinct threads over 6 channels), ${CAP} agents per replica, fake Slack x${SCALE} time scale:`);
const one = await run(1);
const three = await run(3);
const fmt = (r: Result) => ({
  replicas: String(r.replicas),
  wall: `${r.seconds.toFixed(1)} s`,
  tpm: r.turnsPerMin.toFixed(0),
  edits: `${r.updates} / ${r.budget} (${((r.updates / r.budget) * 100).toFixed(0)}%)`,
  limited: String(r.rateLimited),
  first: `${median(r.firstTextMs).toFixed(0)} / ${p95(r.firstTextMs).toFixed(0)} ms`,
});
printTable(
  { replicas: 'replicas', wall: 'all answered', tpm: 'turns/min', edits: 'chat.update used / budget', limited: '429s', first: 'first text median / p95' },
  [fmt(one), fmt(three)],
);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
console.log();
printTable(
  { what: '3 replicas : 1', value: 'ratio' },
  [
    { what: 'turns per minute', value: ratio(three.turnsPerMin, one.turnsPerMin) },
    { what: 'share of the chat.update budget used', value: ratio(three.updates / three.budget, one.updates / one.budget) },
    { what: 'first-text latency (median)', value: ratio(median(three.firstTextMs), median(one.firstTextMs)) },
    { what: 'first-text latency (p95)', value: ratio(p95(three.firstTextMs), p95(one.firstTextMs)) },
  ],
);
if (one.rateLimited + three.rateLimited > 0) {
  console.log(`\nWARNING: the fake answered ${one.rateLimited + three.rateLimited} calls with 429`);
  process.exitCode = 1;
}
