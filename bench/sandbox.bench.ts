/**
 * What the agent box (issue 21) costs a turn, in one process through the runner's run():
 *   - time from run() to the agent's first instruction (bash's $EPOCHREALTIME at its start),
 *     unsandboxed (TURNBRIDGE_SANDBOX=off), in the box without network (a profile with no
 *     allow_hosts), and in the box with its egress proxy and relay (allow_hosts set; the path the
 *     shipped CLI profiles take); run as root, the boxed modes also as a run_as user (no setpriv
 *     step there: runner/sandbox/seccomp.ts): p50 and p90 over BENCH_RUNS (default 21)
 *     alternating runs, after a warm-up of each;
 *   - memory per turn: RSS and PSS of the turn's process tree (bwrap, its init, the relay, the
 *     seccomp helper, the agent) while the agent waits, in each mode; the box's cost is the
 *     difference to unsandboxed. RSS counts a shared library's pages in every process mapping it
 *     (socat's libcrypto, libc); PSS splits them among those processes.
 * Target: the box adds <= 10 ms at p50 to event -> agent started.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { decideSandbox, run, sandboxProblem, type LaunchPolicy } from '../src/runner/index.js';
import { loadEgressProxy } from '../src/runner/sandbox/egress.js';
import type { Profile } from '../src/profile/types.js';
import { median, quantile, treePssBytes, treeRssBytes } from './lib/measure.js';
import { printTable } from './lib/table.js';

const RUNS = Math.max(3, Number(process.env.BENCH_RUNS ?? 21));
const problem = sandboxProblem();
if (problem) {
  console.log(`the box cannot start here (${problem}): nothing to measure`);
  process.exit(0);
}
const RUN_AS = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
const dir = mkdtempSync(join(tmpdir(), 'tb-bench-box-'));
chmodSync(dir, 0o755);
const places = (who: string) => {
  const p = { workspace: join(dir, who, 'ws'), home: join(dir, who, 'home') };
  for (const d of Object.values(p)) {
    mkdirSync(d, { recursive: true });
    if (who === 'run_as' && RUN_AS) chownSync(d, RUN_AS.uid, RUN_AS.gid);
  }
  return p;
};
const own = places('own');
const other = RUN_AS ? places('run_as') : own;

type Mode = 'off' | 'box' | 'box+egress' | 'box, run_as' | 'box+egress, run_as';
const MODES: Mode[] = ['off', 'box', 'box+egress', ...(RUN_AS ? ['box, run_as', 'box+egress, run_as'] as const : [])];
const egress = (m: Mode) => m.startsWith('box+egress');
const asOther = (m: Mode) => m.endsWith('run_as');
const started = (mode: Mode): Profile => ({
  dir: '', command: '/bin/bash', args: ['-c', 'echo "{\\"type\\":\\"result\\",\\"text\\":\\"$EPOCHREALTIME\\"}"; read -r turn'],
  env: {}, timeoutSecs: 30, killGraceSecs: 1, streaming: true, permission: false,
  ...(egress(mode) ? { sandbox: { read: [], allowHosts: [{ host: 'api.example.com' }] } } : {}),
});
const waiting = (mode: Mode): Profile => ({
  ...started(mode), args: ['-c', 'read -r turn; echo \'{"type":"partial","text":"ready"}\'; exec sleep 30'],
});
const launch = (mode: Mode): LaunchPolicy => ({
  sandbox: mode === 'off' ? 'off' : 'bwrap', defaultCwd: (asOther(mode) ? other : own).workspace, ...(asOther(mode) && RUN_AS ? { runAs: RUN_AS } : {}),
});
const opts = (mode: Mode) => {
  const { home } = asOther(mode) ? other : own;
  return { launch: launch(mode), dirs: { home }, env: { PATH: process.env.PATH, HOME: home } };
};

/** ms from run() to the agent's first instruction. */
async function startLatency(mode: Mode): Promise<number> {
  const t0 = performance.timeOrigin + performance.now();
  const r = await run(started(mode), { message: 'hi' }, {}, opts(mode));
  if (r.error) throw new Error(`${mode}: ${r.error}`);
  return Number((r.partials[0]?.text ?? r.reply).trim()) * 1000 - t0;
}

/** RSS and PSS of the turn's process tree while the agent waits. */
async function turnMemory(mode: Mode): Promise<{ rss: number; pss: number }> {
  const stop = new AbortController();
  let pid = 0;
  let m = { rss: 0, pss: 0 };
  await run(waiting(mode), { message: 'hi' }, {
    onSpawn: (p) => { pid = p; },
    onPartial: () => { m = { rss: treeRssBytes(pid), pss: treePssBytes(pid) }; stop.abort(); },
  }, { ...opts(mode), signal: stop.signal, killGraceMs: 100 });
  return m;
}

await loadEgressProxy(); // the bridge loads it at start-up
const loadBefore = loadavg()[0]!;
const lat = Object.fromEntries(MODES.map((m) => [m, [] as number[]])) as Record<Mode, number[]>;
for (const m of MODES) await startLatency(m); // warm-up: the probe, the first bwrap, the page cache
for (let i = 0; i < RUNS; i++) for (const m of MODES) lat[m].push(await startLatency(m));
const mem = Object.fromEntries(MODES.map((m) => [m, [] as number[]])) as Record<Mode, number[]>;
const pss = Object.fromEntries(MODES.map((m) => [m, [] as number[]])) as Record<Mode, number[]>;
for (let i = 0; i < 5; i++) {
  for (const m of MODES) {
    const t = await turnMemory(m);
    mem[m].push(t.rss);
    pss[m].push(t.pss);
  }
}
const loadAfter = loadavg()[0]!;
rmSync(dir, { recursive: true, force: true });

const ms = (v: number) => `${v.toFixed(1)} ms`;
const mib = (v: number) => `${(v / 1048576).toFixed(1)} MiB`;
const base = median(lat.off);
const baseMem = median(mem.off);
const basePss = median(pss.off);
const d = decideSandbox('bwrap');
printTable({ mode: 'mode', p50: 'run() -> agent started, p50', p90: 'p90', added: 'added at p50', rss: 'turn RSS (tree)', addedRss: 'added RSS', addedPss: 'added PSS', target: 'target', met: 'met' },
  MODES.map((m) => {
    const added = median(lat[m]) - base;
    return {
      mode: m === 'off' ? 'unsandboxed' : m,
      p50: ms(median(lat[m])), p90: ms(quantile(lat[m], 0.9)), added: m === 'off' ? '' : ms(added),
      rss: mib(median(mem[m])), addedRss: m === 'off' ? '' : mib(median(mem[m]) - baseMem), addedPss: m === 'off' ? '' : mib(median(pss[m]) - basePss),
      target: m === 'off' ? '' : '<= 10 ms added', met: m === 'off' ? '' : added <= 10 ? 'yes' : 'NO',
    };
  }));
const stage = d.inForce === 'bwrap' && d.box.stage ? 'with the seccomp stage' : 'without the seccomp stage';
console.log(`\n${RUNS} runs per mode, alternating, the box ${stage}, as uid ${process.getuid?.()}${RUN_AS ? ` (run_as: uid ${RUN_AS.uid})` : ''}; `
  + `memory: medians of 5 turns per mode (RSS counts shared library pages in each process; PSS splits them). Load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after, ${availableParallelism()} cores. `
  + 'The egress proxy itself lives in the bridge\'s process (one http.Server per boxed turn that allows hosts).');
