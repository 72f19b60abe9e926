/**
 * turnbridge's CLI against the reference AgentProc runner CLI (npm `agentproc` 0.14.0), both
 * as whole processes on the same machine in one run. Medians over BENCH_RUNS (default 5) runs.
 *   (a) a trivial one-line agent, and the floor: the agent spawned directly, turn piped in
 *   (b) 200,000 partials of 100 bytes: wall time, throughput, peak memory of the process tree
 *   (c) one 64 MiB line: wall time, peak memory (the reference gets a time budget)
 *   (d) 50 concurrent turns of the trivial agent
 * Env: BENCH_RUNS=n, BENCH_ONLY=a,c (a subset), BENCH_REF_C_BUDGET_SECS (default 30).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { measure, median, type Measured } from './lib/measure.js';
import { printTable } from './lib/table.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const AGENTS = join(ROOT, 'bench/agents');
const OURS = join(ROOT, 'bin/turnbridge.js');
const REF = realpathSync(join(ROOT, 'node_modules/.bin/agentproc'));
const REF_VERSION = (JSON.parse(readFileSync(join(ROOT, 'node_modules/agentproc/package.json'), 'utf8')) as { version: string }).version;
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const ONLY = new Set((process.env.BENCH_ONLY ?? 'a,b,c,d').split(',').map((s) => s.trim()));
const REF_C_BUDGET_MS = Number(process.env.BENCH_REF_C_BUDGET_SECS ?? 30) * 1000;
const CONCURRENT = 50;
const TURN = `${JSON.stringify({ type: 'turn', message: 'hi', session_id: '', session_name: 'default', attachments: [], permission: false, protocol_version: '0.4' })}\n`;
const MiB = 1024 * 1024;

const env = { ...process.env };
delete env.LOG_LEVEL;

const ours = (profile: string, o: { memory?: boolean } = {}) =>
  measure(process.execPath, [OURS, 'run', join(AGENTS, profile), '--message', 'hi', '--json'], { env, sampleMemory: o.memory, keepBytes: 4 * MiB });
const ref = (profile: string, o: { memory?: boolean; timeoutMs?: number } = {}) =>
  measure(process.execPath, [REF, '--profile', join(AGENTS, profile), '--prompt', 'hi'], { env, sampleMemory: o.memory, timeoutMs: o.timeoutMs, keepBytes: 1024 });

/** The profile's agent spawned directly with the turn piped in: what no runner can beat. */
function floor(profileFile: string): () => Promise<Measured> {
  const profile = parseYaml(readFileSync(join(AGENTS, profileFile), 'utf8')) as { command: string; args?: string[] };
  const args = (profile.args ?? []).map((a) => a.replaceAll('{{PROFILE_DIR}}', AGENTS));
  return () => measure(profile.command, args, { input: TURN, keepBytes: 1024 });
}

function oursOk(m: Measured, check?: (out: { reply: string; exit_code: number; partials: unknown[] }) => boolean): boolean {
  try {
    const out = JSON.parse(m.stdout) as { reply: string; exit_code: number; partials: unknown[] };
    return m.code === 0 && out.exit_code === 0 && (check ? check(out) : true);
  } catch {
    return false;
  }
}

interface Row { case: string; metric: string; ours: string; ref: string; ratio: string; target: string; met: string }
const rows: Row[] = [];
const notes: string[] = [];
const ms = (v: number) => `${v.toFixed(0)} ms`;
const mib = (v: number) => `${(v / MiB).toFixed(0)} MiB`;
const ratio = (refValue: number, oursValue: number) => `${(refValue / oursValue).toFixed(2)}x`;
const mark = (ok: boolean) => (ok ? 'yes' : 'NO');
const progress = (text: string) => process.stderr.write(`${text}\n`);

async function caseA(): Promise<void> {
  progress('(a) trivial agent…');
  const agentAlone = floor('trivial.yaml');
  await ours('trivial.yaml');
  await ref('trivial.yaml'); // warm-up (the file system cache)
  const t = { ours: [] as number[], ref: [] as number[], floor: [] as number[] };
  let ok = true;
  for (let i = 0; i < Math.max(RUNS, 7); i++) {
    const a = await ours('trivial.yaml');
    const b = await ref('trivial.yaml');
    const c = await agentAlone();
    ok &&= oursOk(a, (out) => out.reply === 'ok') && b.code === 0 && b.stdout.trim() === 'ok' && c.code === 0;
    t.ours.push(a.wallMs);
    t.ref.push(b.wallMs);
    t.floor.push(c.wallMs);
  }
  const [o, r, f] = [median(t.ours), median(t.ref), median(t.floor)];
  rows.push({ case: '(a) trivial agent', metric: 'wall, median', ours: ms(o), ref: ms(r), ratio: ratio(r, o), target: '>= 1x (no slower)', met: ok ? mark(o <= r) : 'FAILED RUN' });
  rows.push({ case: '    floor (agent alone)', metric: 'wall, median', ours: ms(f), ref: ms(f), ratio: '', target: '', met: '' });
  notes.push(`(a) CLI overhead above the floor: turnbridge ${ms(o - f)}, reference ${ms(r - f)}.`);
}

async function caseB(): Promise<void> {
  progress('(b) 200,000 partials of 100 bytes…');
  const o: Measured[] = [];
  const r: Measured[] = [];
  const f: Measured[] = [];
  const agentAlone = floor('partials.yaml');
  for (let i = 0; i < RUNS; i++) {
    o.push(await ours('partials.yaml', { memory: true }));
    r.push(await ref('partials.yaml', { memory: true }));
    f.push(await agentAlone());
  }
  const ok = o.every((m) => oursOk(m, (out) => out.partials.length > 0)) && r.every((m) => m.code === 0);
  const refStderr = median(r.map((m) => m.stderrBytes));
  if (refStderr < 200_000 * 100) {
    notes.push(`(b) the reference echoes each partial to its stderr, but exits before a pipe drains: ${(refStderr / MiB).toFixed(1)} of ~${((200_000 * 118) / MiB).toFixed(0)} MiB arrived (median).`);
  }
  const [ow, rw] = [median(o.map((m) => m.wallMs)), median(r.map((m) => m.wallMs))];
  const [om, rm] = [median(o.map((m) => m.peakRssBytes)), median(r.map((m) => m.peakRssBytes))];
  const tput = (w: number) => `${((200_000 / w) * 1000 / 1000).toFixed(0)}k partials/s`;
  rows.push({ case: '(b) 200k partials x 100 B', metric: 'wall, median', ours: ms(ow), ref: ms(rw), ratio: ratio(rw, ow), target: '>= 3x throughput', met: ok ? mark(rw / ow >= 3) : 'FAILED RUN' });
  rows.push({ case: '', metric: 'throughput', ours: tput(ow), ref: tput(rw), ratio: ratio(rw, ow), target: '', met: '' });
  rows.push({ case: '', metric: 'peak RSS (tree)', ours: mib(om), ref: mib(rm), ratio: ratio(rm, om), target: '', met: '' });
  const fw = median(f.map((m) => m.wallMs));
  rows.push({ case: '    floor (agent alone)', metric: 'wall, median', ours: ms(fw), ref: ms(fw), ratio: '', target: '', met: '' });
  notes.push(`(b) time above the floor: turnbridge ${ms(ow - fw)}, reference ${ms(rw - fw)} (${ratio(rw - fw, ow - fw)}).`);
}

async function caseC(): Promise<void> {
  progress('(c) one 64 MiB line…');
  const o: Measured[] = [];
  for (let i = 0; i < RUNS; i++) o.push(await ours('big-line.yaml', { memory: true }));
  const r: Measured[] = [];
  const budgetEnd = performance.now() + REF_C_BUDGET_MS;
  // Another reference run only when the last one would still fit in the budget.
  while (r.length < RUNS && (r.length === 0 || budgetEnd - performance.now() > r[r.length - 1]!.wallMs)) {
    progress(`    reference run ${r.length + 1} (budget ${Math.round((budgetEnd - performance.now()) / 1000)} s left)…`);
    r.push(await ref('big-line.yaml', { memory: true, timeoutMs: Math.max(1000, budgetEnd - performance.now()) }));
  }
  const ok = o.every((m) => oursOk(m));
  const [ow, om] = [median(o.map((m) => m.wallMs)), median(o.map((m) => m.peakRssBytes))];
  const finished = r.filter((m) => !m.timedOut);
  const capped = r.length - finished.length;
  const refWall = finished.length ? median(finished.map((m) => m.wallMs)) : NaN;
  const refPeak = Math.max(...r.map((m) => m.peakRssBytes));
  const refNote = `${r.length} run${r.length === 1 ? '' : 's'}${capped ? `, ${capped} stopped at the ${REF_C_BUDGET_MS / 1000} s budget` : ''}`;
  rows.push({
    case: '(c) one 64 MiB line', metric: 'wall, median', ours: ms(ow),
    ref: finished.length ? `${ms(refWall)} (${refNote})` : `> ${REF_C_BUDGET_MS / 1000} s (${refNote})`,
    ratio: finished.length ? ratio(refWall, ow) : `> ${ratio(REF_C_BUDGET_MS, ow)}`, target: '< 5 s', met: ok ? mark(ow < 5000) : 'FAILED RUN',
  });
  rows.push({ case: '', metric: 'peak RSS (tree)', ours: mib(om), ref: `${mib(refPeak)}${capped ? ' (at the cap)' : ''}`, ratio: ratio(refPeak, om), target: '< 150 MiB', met: ok ? mark(om < 150 * MiB) : 'FAILED RUN' });
  notes.push('(c) turnbridge counts a line over its 4 MiB limit as it streams past and drops it (the reply says so); the reference buffers the whole line and returns it.');
}

async function caseD(): Promise<void> {
  progress(`(d) ${CONCURRENT} concurrent turns…`);
  const round = async (one: () => Promise<Measured>) => {
    const started = performance.now();
    const all = await Promise.all(Array.from({ length: CONCURRENT }, one));
    return { wall: performance.now() - started, all };
  };
  const o: number[] = [];
  const r: number[] = [];
  let ok = true;
  for (let i = 0; i < RUNS; i++) {
    const a = await round(() => ours('trivial.yaml'));
    const b = await round(() => ref('trivial.yaml'));
    ok &&= a.all.every((m) => oursOk(m, (out) => out.reply === 'ok')) && b.all.every((m) => m.code === 0 && m.stdout.trim() === 'ok');
    o.push(a.wall);
    r.push(b.wall);
  }
  const [ow, rw] = [median(o), median(r)];
  rows.push({ case: `(d) ${CONCURRENT} concurrent turns`, metric: 'wall for all, median', ours: ms(ow), ref: ms(rw), ratio: ratio(rw, ow), target: '>= 1x (no slower)', met: ok ? mark(ow <= rw) : 'FAILED RUN' });
}


const started = performance.now();
console.log(`turnbridge CLI vs agentproc ${REF_VERSION} reference CLI — node ${process.version}, ${cpus().length} cores, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, ${RUNS} runs per median`);
console.log(`turnbridge: node bin/turnbridge.js run P --message hi --json   reference: node ${REF.slice(ROOT.length + 1)} --profile P --prompt hi`);
if (ONLY.has('a')) await caseA();
if (ONLY.has('b')) await caseB();
if (ONLY.has('c')) await caseC();
if (ONLY.has('d')) await caseD();
console.log('');
printTable<Row>({ case: 'case', metric: 'metric', ours: 'turnbridge', ref: `agentproc ${REF_VERSION}`, ratio: 'ref/ours', target: 'target', met: 'met' }, rows);
console.log('');
for (const note of notes) console.log(note);
console.log('ratio = reference / turnbridge (above 1: turnbridge is faster or smaller). Peak RSS = the CLI and its agent together, sampled from /proc every 15 ms.');
console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);
