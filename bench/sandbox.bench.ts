/**
 * What the agent box (issue 21) costs a turn, in one process through the runner's run():
 *   - time from run() to the agent's first instruction (bash's $EPOCHREALTIME at its start),
 *     unsandboxed (TURNBRIDGE_SANDBOX=off), in the box without network (a profile with no
 *     allow_hosts), and in the box with its egress proxy and relay (allow_hosts set): p50 and p90
 *     over BENCH_RUNS (default 21) alternating runs, after a warm-up of each;
 *   - memory per turn: RSS of the turn's process tree (bwrap, its init, the relay, the agent)
 *     while the agent waits, in each mode; the box's cost is the difference to unsandboxed.
 * Target: the box adds <= 10 ms at p50 to event -> agent started.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, sandboxProblem, type LaunchPolicy } from '../src/runner/index.js';
import type { Profile } from '../src/profile/types.js';
import { median, quantile, treeRssBytes } from './lib/measure.js';
import { printTable } from './lib/table.js';

const RUNS = Math.max(3, Number(process.env.BENCH_RUNS ?? 21));
const problem = sandboxProblem();
if (problem) {
  console.log(`the box cannot start here (${problem}): nothing to measure`);
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), 'tb-bench-box-'));
const workspace = join(dir, 'ws');
const home = join(dir, 'home');
for (const d of [workspace, home]) (await import('node:fs')).mkdirSync(d);

type Mode = 'off' | 'box' | 'box+egress';
const MODES: Mode[] = ['off', 'box', 'box+egress'];
const started = (mode: Mode): Profile => ({
  dir: '', command: '/bin/bash', args: ['-c', 'echo "{\\"type\\":\\"result\\",\\"text\\":\\"$EPOCHREALTIME\\"}"; read -r turn'],
  env: {}, timeoutSecs: 30, killGraceSecs: 1, streaming: true, permission: false,
  ...(mode === 'box+egress' ? { sandbox: { read: [], allowHosts: [{ host: 'api.example.com' }] } } : {}),
});
const waiting = (mode: Mode): Profile => ({
  ...started(mode), args: ['-c', 'read -r turn; echo \'{"type":"partial","text":"ready"}\'; exec sleep 30'],
});
const launch = (mode: Mode): LaunchPolicy => ({ sandbox: mode === 'off' ? 'off' : 'bwrap', defaultCwd: workspace });
const opts = (mode: Mode) => ({ launch: launch(mode), dirs: { home }, env: { PATH: process.env.PATH, HOME: home } });

/** ms from run() to the agent's first instruction. */
async function startLatency(mode: Mode): Promise<number> {
  const t0 = performance.timeOrigin + performance.now();
  const r = await run(started(mode), { message: 'hi' }, {}, opts(mode));
  if (r.error) throw new Error(`${mode}: ${r.error}`);
  return Number((r.partials[0]?.text ?? r.reply).trim()) * 1000 - t0;
}

/** RSS of the turn's process tree while the agent waits. */
async function turnRss(mode: Mode): Promise<number> {
  const stop = new AbortController();
  let pid = 0;
  let rss = 0;
  await run(waiting(mode), { message: 'hi' }, {
    onSpawn: (p) => { pid = p; },
    onPartial: () => { rss = treeRssBytes(pid); stop.abort(); },
  }, { ...opts(mode), signal: stop.signal, killGraceMs: 100 });
  return rss;
}

const lat: Record<Mode, number[]> = { off: [], box: [], 'box+egress': [] };
for (const m of MODES) await startLatency(m); // warm-up: the proxy library loads once (the bridge does it at start-up)
for (let i = 0; i < RUNS; i++) for (const m of MODES) lat[m].push(await startLatency(m));
const mem: Record<Mode, number[]> = { off: [], box: [], 'box+egress': [] };
for (let i = 0; i < 5; i++) for (const m of MODES) mem[m].push(await turnRss(m));
rmSync(dir, { recursive: true, force: true });

const ms = (v: number) => `${v.toFixed(1)} ms`;
const mib = (v: number) => `${(v / 1048576).toFixed(1)} MiB`;
const base = median(lat.off);
const baseMem = median(mem.off);
printTable({ mode: 'mode', p50: 'run() -> agent started, p50', p90: 'p90', added: 'added at p50', rss: 'turn RSS (tree), median', addedRss: 'added RSS', target: 'target', met: 'met' },
  MODES.map((m) => {
    const added = median(lat[m]) - base;
    return {
      mode: m === 'off' ? 'unsandboxed' : m === 'box' ? 'box, no network' : 'box + egress proxy',
      p50: ms(median(lat[m])), p90: ms(quantile(lat[m], 0.9)), added: m === 'off' ? '' : ms(added),
      rss: mib(median(mem[m])), addedRss: m === 'off' ? '' : mib(median(mem[m]) - baseMem),
      target: m === 'off' ? '' : '<= 10 ms added', met: m === 'off' ? '' : added <= 10 ? 'yes' : 'NO',
    };
  }));
console.log(`\n${RUNS} runs per mode, alternating; memory: 5 turns per mode. The egress proxy itself lives in the bridge's process (one http.Server per boxed turn).`);
