/**
 * Whole-process measurements for benchmarks: wall time and the peak resident memory of the
 * process tree (the CLI plus the agent it spawns), sampled from /proc.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Measured {
  wallMs: number;
  /** Peak of the summed RSS of the process and all its descendants, in bytes (0 when not sampled). */
  peakRssBytes: number;
  code: number | null;
  timedOut: boolean;
  /** The last `keepBytes` of stdout. */
  stdout: string;
  stdoutBytes: number;
  stderrBytes: number;
}

export interface MeasureOptions {
  input?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  sampleMemory?: boolean;
  sampleEveryMs?: number;
  keepBytes?: number;
}

export function measure(command: string, args: string[], opts: MeasureOptions = {}): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const keep = opts.keepBytes ?? 64 * 1024;
    const started = performance.now();
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let peak = 0;
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdoutBytes += d.length;
      stdout = (stdout + d).slice(-keep);
    });
    child.stderr.on('data', (d: Buffer) => { stderrBytes += d.length; });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
    const sample = () => {
      if (child.pid !== undefined) peak = Math.max(peak, treeRssBytes(child.pid));
    };
    const sampler = opts.sampleMemory ? setInterval(sample, opts.sampleEveryMs ?? 15) : undefined;
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          if (child.pid !== undefined) killTree(child.pid);
        }, opts.timeoutMs)
      : undefined;
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (sampler) clearInterval(sampler);
      if (timer) clearTimeout(timer);
      resolve({ wallMs, peakRssBytes: peak, code, timedOut, stdout, stdoutBytes, stderrBytes });
    });
  });
}

/** pid -> parent pid for every process now alive. */
function parentMap(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid ..." — comm may contain spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  return children;
}

export function descendants(root: number): number[] {
  const children = parentMap();
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]!) ?? []));
  return out;
}

/** Summed over the tree: `file` with `pattern`'s kB (VmRSS in status, Pss in smaps_rollup). */
function treeSum(root: number, file: string, pattern: RegExp): number {
  let total = 0;
  for (const pid of descendants(root)) {
    try {
      const m = pattern.exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch { /* gone */ }
  }
  return total;
}

/** Resident memory of a process tree, shared library pages counted in every process that maps them. */
export function treeRssBytes(root: number): number {
  return treeSum(root, 'status', /VmRSS:\s+(\d+) kB/);
}

/** Proportional set size of a process tree: each shared page split among the processes that map it (what the tree really adds). */
export function treePssBytes(root: number): number {
  return treeSum(root, 'smaps_rollup', /^Pss:\s+(\d+) kB/m);
}

export function killTree(root: number): void {
  for (const pid of descendants(root).reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch { /* gone */ }
  }
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The q-quantile by nearest rank (q = 0.99: the value 99% of the samples are at or below). */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
