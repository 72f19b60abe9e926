/**
 * The bridge's own cost on the path a chat user waits on. The bridge runs as its own process
 * (`turnbridge start`'s startTurnbridge, real Bolt app / real discord.js client) against the
 * project's fakes in this process; the agent (bench/agents/instant.sh) answers at once.
 *   latency   BENCH_BRIDGE_TURNS turns one after another: event -> agent started (minus the
 *             floor: the same agent spawned directly), first partial -> first visible text,
 *             agent exit -> final text; the bridge's CPU per turn (from before the event to
 *             200 ms after the final text, minus the bridge's idle CPU over that time)
 *   10 at once BENCH_BRIDGE_ROUNDS rounds of 10 concurrent replies in one workspace: exit -> final
 *   partials  BENCH_BRIDGE_PARTIAL_TURNS turns of 5,000 partials "x", each beside a turn that
 *             sends the same text in one partial (same messages, same edits): the difference of
 *             the medians, per 1,000, is the bridge's CPU per 1,000 partials
 *   memory    1, 100 and 500 conversations whose agents wait (a FIFO gate): the bridge process's
 *             peak RSS (agents are other processes), then all released: exact final text
 * Env: BENCH_BRIDGE_PLATFORMS=slack,discord  BENCH_BRIDGE_PHASES=latency,memory
 *      BENCH_BRIDGE_TURNS=200  BENCH_BRIDGE_ROUNDS=20  BENCH_BRIDGE_PARTIAL_TURNS=20
 *      BENCH_BRIDGE_LEVELS=1,100,500  BENCH_SLACK_SCALE=20  BENCH_SLACK_MEMORY_SCALE=100
 *      BENCH_HOST_PROF=<dir> (a --cpu-prof of the bridge process)
 *      BENCH_BRIDGE_SANDBOX=auto|bwrap|off (the bridge's TURNBRIDGE_SANDBOX; unset: the default box)
 */
import { execFileSync } from 'node:child_process';
import { openSync, closeSync, writeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { discordDriver, slackDriver, type Driver } from './lib/bridge-drivers.js';
import { BridgeRig, type TurnShape, type TurnTimes } from './lib/bridge-rig.js';
import { median, quantile } from './lib/measure.js';
import { BANNER_NO_PERMISSION } from '../src/bridge/turns/accept-message.js';
import { printTable } from './lib/table.js';

const num = (name: string, dflt: number) => Math.max(1, Number(process.env[name] ?? dflt));
const PLATFORMS = (process.env.BENCH_BRIDGE_PLATFORMS ?? 'slack,discord').split(',').map((s) => s.trim());
const PHASES = new Set((process.env.BENCH_BRIDGE_PHASES ?? 'latency,memory').split(',').map((s) => s.trim()));
const TURNS = num('BENCH_BRIDGE_TURNS', 200);
const ROUNDS = num('BENCH_BRIDGE_ROUNDS', 20);
const PARTIAL_TURNS = num('BENCH_BRIDGE_PARTIAL_TURNS', 20);
const LEVELS = (process.env.BENCH_BRIDGE_LEVELS ?? '1,100,500').split(',').map(Number);
const SLACK_SCALE = num('BENCH_SLACK_SCALE', 20);
/** Memory does not depend on the pace; a faster one only shortens the wait for 500 placeholders. */
const SLACK_MEMORY_SCALE = num('BENCH_SLACK_MEMORY_SCALE', 100);
const MiB = 1024 * 1024;
const progress = (s: string) => process.stderr.write(`${s}\n`);

interface Row { platform: string; figure: string; p50: string; p99: string; target: string; ratio: string; met: string }
const rows: Row[] = [];
const notes: string[] = [];
const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : 'n/a');
const mib = (v: number) => `${(v / MiB).toFixed(1)} MiB`;
const ratioOf = (value: number, target: number) => (Number.isFinite(value) ? `${(value / target).toFixed(2)}` : 'n/a');
const mark = (ok: boolean) => (ok ? 'yes' : 'NO');

/** The reply's answer: whitespace folded, without the once-per-conversation banner. */
const answer = (shown: string) => shown.replace(BANNER_NO_PERMISSION, '').replace(/\s+/g, ' ').trim();

function gaps(turns: TurnTimes[], from: keyof TurnTimes, to: keyof TurnTimes): number[] {
  return turns.filter((t) => t[from] !== undefined && t[to] !== undefined).map((t) => (t[to] as number) - (t[from] as number));
}

/** Partials per turn for the per-1,000 figure: enough to stand out of a turn's own cost. */
const FILLER = 5000;

/** After a turn's final text: its reactions and bookkeeping are done by then. */
const SETTLE_MS = 200;
const sleep = (msDelay: number) => new Promise((r) => setTimeout(r, msDelay));

/** The bridge's CPU per ms when nothing happens (heartbeats, pings, limiter timers). */
async function idleCpuPerMs(rig: BridgeRig): Promise<number> {
  await sleep(500);
  const a = await rig.usage();
  const t = performance.now();
  await sleep(2000);
  const b = await rig.usage();
  return (b.cpuUs - a.cpuUs) / 1000 / (performance.now() - t);
}

/** One turn and the bridge CPU it cost: from before the event to a settle after its final text, idle CPU taken out. */
async function measuredTurn(rig: BridgeRig, shape: TurnShape, idleRate: number): Promise<{ times: TurnTimes; cpuMs: number }> {
  const a = await rig.usage();
  const t = performance.now();
  const times = await rig.turn(shape);
  await sleep(SETTLE_MS);
  const b = await rig.usage();
  return { times, cpuMs: (b.cpuUs - a.cpuUs) / 1000 - idleRate * (performance.now() - t) };
}

async function withRig<T>(driver: Driver, maxConcurrent: number, fn: (rig: BridgeRig) => Promise<T>): Promise<T> {
  const rig = new BridgeRig(driver);
  try {
    await rig.start(maxConcurrent);
    return await fn(rig);
  } finally {
    await rig.close();
  }
}

async function latency(make: () => Promise<Driver>): Promise<void> {
  const driver = await make();
  const name = driver.name;
  notes.push(`${name} latency: ${driver.budgets}.`);
  await withRig(driver, 600, async (rig) => {
    progress(`${name}: warm-up…`);
    for (let i = 0; i < 10; i++) await rig.turn();
    for (let i = 0; i < 10; i++) await rig.floor();

    progress(`${name}: idle CPU…`);
    const idleRate = await idleCpuPerMs(rig);
    progress(`${name}: ${TURNS} turns one after another…`);
    const seq: TurnTimes[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const m = await measuredTurn(rig, {}, idleRate);
      seq.push(m.times);
      cpu.push(m.cpuMs);
    }
    const floors: number[] = [];
    for (let i = 0; i < TURNS; i++) floors.push(await rig.floor());
    rig.readAgentLog();
    const cpuPerTurn = median(cpu);

    const spawn = gaps(seq, 'event', 'started');
    const [f50, f99] = [median(floors), quantile(floors, 0.99)]; // p99s are not subtracted: they come from different turns
    const over50 = median(spawn) - f50;
    rows.push({ platform: name, figure: 'event -> agent started', p50: ms(median(spawn)), p99: ms(quantile(spawn, 0.99)), target: '', ratio: '', met: '' });
    rows.push({ platform: name, figure: '  floor: agent spawned directly', p50: ms(f50), p99: ms(f99), target: '', ratio: '', met: '' });
    rows.push({ platform: name, figure: '  bridge overhead over the floor', p50: ms(over50), p99: '', target: '<= 5 ms at p50', ratio: ratioOf(over50, 5), met: mark(over50 <= 5) });
    const visible = gaps(seq, 'firstPartial', 'visible');
    const v99 = quantile(visible, 0.99);
    rows.push({ platform: name, figure: 'first partial -> first visible text', p50: ms(median(visible)), p99: ms(v99), target: '<= 150 ms (p99)', ratio: ratioOf(v99, 150), met: mark(v99 <= 150) });
    const final = gaps(seq, 'exited', 'final');
    rows.push({ platform: name, figure: 'agent exit -> final text (1 at a time)', p50: ms(median(final)), p99: ms(quantile(final, 0.99)), target: '', ratio: '', met: '' });
    rows.push({ platform: name, figure: 'bridge CPU per turn', p50: ms(cpuPerTurn), p99: ms(quantile(cpu, 0.99)), target: 'none set', ratio: '', met: '' });
    const missing = seq.filter((t) => t.started === undefined).length;
    if (missing) notes.push(`${name}: ${missing} of ${TURNS} turns left no agent log line (not counted).`);

    progress(`${name}: ${ROUNDS} rounds of 10 replies at once…`);
    const conc: TurnTimes[] = [];
    for (let r = 0; r < ROUNDS; r++) conc.push(...(await Promise.all(Array.from({ length: 10 }, () => rig.turn()))));
    rig.readAgentLog();
    const cfinal = gaps(conc, 'exited', 'final');
    const c99 = quantile(cfinal, 0.99);
    rows.push({ platform: name, figure: 'agent exit -> final text (10 at once)', p50: ms(median(cfinal)), p99: ms(c99), target: '<= 1000 ms (p99)', ratio: ratioOf(c99, 1000), met: mark(c99 <= 1000) });
    const cvis = gaps(conc, 'firstPartial', 'visible');
    rows.push({ platform: name, figure: 'first partial -> first visible (10 at once)', p50: ms(median(cvis)), p99: ms(quantile(cvis, 0.99)), target: '', ratio: '', met: '' });

    progress(`${name}: ${PARTIAL_TURNS} turns of ${FILLER} partials, each beside one with the same text in one partial…`);
    const one: number[] = [];
    const many: number[] = [];
    for (let i = 0; i < PARTIAL_TURNS; i++) {
      one.push((await measuredTurn(rig, { filler: FILLER, fillerInOne: true }, idleRate)).cpuMs);
      many.push((await measuredTurn(rig, { filler: FILLER }, idleRate)).cpuMs);
    }
    const per1000 = ((median(many) - median(one)) * 1000) / (FILLER - 1);
    rows.push({ platform: name, figure: 'bridge CPU per 1,000 partials', p50: ms(per1000), p99: '', target: 'none set', ratio: '', met: '' });
  });
}

/** Conversations held open (their agents wait at a FIFO), then released. */
async function memory(make: () => Promise<Driver>): Promise<void> {
  const driver = await make();
  const name = driver.name;
  notes.push(`${name} memory: ${driver.budgets}.`);
  const peaks: number[] = [];
  await withRig(driver, 600, async (rig) => {
    for (let i = 0; i < 5; i++) await rig.turn();
    const idle = (await rig.usage()).rss;
    rows.push({ platform: name, figure: 'bridge RSS, idle after warm-up', p50: mib(idle), p99: '', target: '', ratio: '', met: '' });
    for (const [k, level] of LEVELS.entries()) {
      progress(`${name}: ${level} conversations waiting on their agents…`);
      const gate = `g${k}`;
      const fifo = join(rig.gateDir, gate);
      execFileSync('mkfifo', [fifo]);
      // O_RDWR never blocks on a FIFO (Linux), and keeps it open for agents that open it late.
      const fd = openSync(fifo, 'r+');
      const started = performance.now();
      // A burst: each message goes out as soon as the platform took the previous one (a Slack
      // event once the bridge acked it), as when many people write within seconds.
      const sent: Array<ReturnType<BridgeRig['send']>> = [];
      for (let i = 0; i < level; i++) {
        const t = rig.send({ gate, timeoutMs: 600_000 });
        sent.push(t);
        await t.sent.catch(() => {});
      }
      const turns = sent.map((t) => t.done);
      const ids = sent.map((t) => t.id);
      // every reply shows its first text and every agent waits: the conversations are idle now
      let peak = 0;
      const settled = Promise.allSettled(turns);
      let over = false; // every turn ended while the gate was still shut: they failed
      void settled.then(() => { over = true; });
      while (!over && !ids.every((id) => rig.visible(id))) {
        peak = Math.max(peak, (await rig.usage()).rss);
        await new Promise((r) => setTimeout(r, 50));
      }
      for (let i = 0; i < 10; i++) {
        peak = Math.max(peak, (await rig.usage()).rss);
        await new Promise((r) => setTimeout(r, 50));
      }
      writeSync(fd, '\n'.repeat(level));
      const outcomes = await settled;
      const wall = performance.now() - started;
      closeSync(fd);
      peaks.push(peak);
      const done = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as Error).message] : []));
      if (failures.length) notes.push(`${name}, ${level} waiting: ${failures.length} turns failed, e.g. ${failures[0]}`);
      const exact = done.filter((t) => answer(rig.driver.shownText(t.id)) === `p${t.id}first p${t.id}last`).length;
      if (process.env.BENCH_DEBUG) for (const t of done.slice(0, 3)) progress(`turn ${t.id} shows ${JSON.stringify(rig.driver.shownText(t.id))}`);
      rows.push({ platform: name, figure: `bridge peak RSS, ${level} waiting`, p50: mib(peak), p99: '', target: '', ratio: '', met: '' });
      rows.push({ platform: name, figure: `  released: exact final text (all in ${(wall / 1000).toFixed(1)} s)`, p50: `${exact}/${level}`, p99: '', target: level >= 500 ? 'all, on 2 cores' : 'all', ratio: `${(exact / level).toFixed(2)}`, met: mark(exact === level) });
    }
    if (LEVELS.length >= 2) {
      const [lo, hi] = [LEVELS[0]!, LEVELS.at(-1)!];
      const per = (peaks.at(-1)! - peaks[0]!) / (hi - lo);
      rows.push({ platform: name, figure: `growth per waiting conversation (${lo} -> ${hi})`, p50: `${(per / 1024).toFixed(0)} KiB`, p99: '', target: '<= 1 MiB', ratio: ratioOf(per, MiB), met: mark(per <= MiB) });
    }
  });
}


const t0 = performance.now();
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`turnbridge bridge path — node ${process.version}, ${cpus().length} cores, load average ${load}; agent box ${process.env.BENCH_BRIDGE_SANDBOX ?? 'auto (the default)'}; ${TURNS} turns, ${ROUNDS} x 10 at once, ${PARTIAL_TURNS} x 2 turns for the partials figure`);
for (const p of PLATFORMS) {
  const make = (scale: number) => (p === 'slack' ? () => slackDriver(scale, 10) : () => discordDriver());
  if (PHASES.has('latency')) await latency(make(SLACK_SCALE));
  if (PHASES.has('memory')) await memory(make(SLACK_MEMORY_SCALE));
}
console.log('');
printTable<Row>({ platform: 'platform', figure: 'figure', p50: 'p50 / value', p99: 'p99', target: 'target', ratio: 'ratio', met: 'met' }, rows);
console.log('');
for (const n of notes) console.log(n);
console.log('ratio = measured / target (at most 1.00 meets it; for exact text: the share exact). Times: the fake\'s and the agent\'s clocks (both this machine\'s wall clock).');
console.log('event: just before the fake sends the event; agent started: its first instruction; visible / final: when the fake answered the call carrying that text.');
console.log(`total ${((performance.now() - t0) / 1000).toFixed(0)} s`);
