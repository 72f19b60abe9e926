// Runs a profiles/<name>/wrapper.mjs as a real child process with a fake CLI first on PATH,
// writes one wire-0.4 turn line, collects the NDJSON events and what the fake CLI logged.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const FAKE_CLI = join(ROOT, 'test/fixtures/fake-cli');

export type WireEvent = Record<string, unknown> & { type: string };
export type LogFact = Record<string, unknown> & { cli: string };

export interface WrapperRun {
  events: WireEvent[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** Facts the fake CLI logged: argv, stdin lines, signals. */
  log: LogFact[];
}

export interface WrapperOptions {
  wrapper: 'claude-code' | 'codex' | 'gemini-cli';
  /** A copy of profiles/ to run the wrapper from (default: this repository's). */
  profilesDir?: string;
  fake?: 'claude' | 'codex' | 'gemini' | null;
  turn: Record<string, unknown>;
  env?: Record<string, string>;
  /** Temp dir used as HOME and cwd; made when absent. */
  dir?: string;
  onEvent?(ev: WireEvent, ctl: { child: ChildProcess; send(obj: unknown): void }): void;
  /** Each stderr chunk of the wrapper as it arrives. */
  onStderr?(chunk: string, ctl: { child: ChildProcess }): void;
}

export function makeTempDir(prefix = 'tb-agents-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function turn(message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'turn', message, session_id: '', session_name: 'default', attachments: [], permission: false, protocol_version: '0.4', ...extra };
}

/** The facts a fake CLI logged to `dir`/`name` (FAKE_CLI_LOG; without it the fakes use $HOME/.fake-cli.jsonl). */
export function readLog(dir: string, name = 'fake-cli.jsonl'): LogFact[] {
  const file = join(dir, name);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogFact);
}

export function runWrapper(opts: WrapperOptions): Promise<WrapperRun> {
  const dir = opts.dir ?? makeTempDir();
  const fake = opts.fake === undefined ? { 'claude-code': 'claude', codex: 'codex', 'gemini-cli': 'gemini' }[opts.wrapper] : opts.fake;
  const path = fake ? `${join(FAKE_CLI, fake)}:${process.env.PATH ?? ''}` : '/nonexistent-bin';
  const env = { PATH: path, HOME: dir, FAKE_CLI_LOG: join(dir, 'fake-cli.jsonl'), ...opts.env };
  const child = spawn(process.execPath, [join(opts.profilesDir ?? join(ROOT, 'profiles'), opts.wrapper, 'wrapper.mjs')], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const events: WireEvent[] = [];
  let stderr = '';
  let buf = '';
  const send = (obj: unknown) => { if (child.stdin.writable) child.stdin.write(JSON.stringify(obj) + '\n'); };
  child.stdin.on('error', () => {});
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const ev = JSON.parse(line) as WireEvent;
      events.push(ev);
      opts.onEvent?.(ev, { child, send });
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => { stderr += c; opts.onStderr?.(c, { child }); });
  child.stdin.write(JSON.stringify(opts.turn) + '\n');
  if (opts.turn.permission !== true) child.stdin.end();
  return new Promise((resolvePromise) => {
    child.on('close', (code, signal) => {
      child.stdin.end();
      const log = readLog(dir);
      if (!opts.dir) removeDir(dir);
      resolvePromise({ events, code, signal, stderr, log });
    });
  });
}

/** True while a process with this pid exists and is not a zombie (an exited child not yet reaped). */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The argv the fake CLI logged (first fact of that CLI). */
export function argvOf(log: LogFact[]): string[] {
  const fact = log.find((f) => Array.isArray(f.argv));
  if (!fact) throw new Error(`the fake CLI logged no argv: ${JSON.stringify(log)}`);
  return fact.argv as string[];
}

/** What the wrapper wrote to the fake CLI's stdin, in order (claude: parsed lines; codex/gemini: the prompt text). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function stdinOf(log: LogFact[]): any[] {
  return log.filter((f) => f.stdin !== undefined).map((f) => f.stdin);
}

/** A turn with no CLI on PATH (the wrapper must answer with the install hint). */
export function runWithoutCli(wrapper: WrapperOptions['wrapper']): Promise<WrapperRun> {
  return runWrapper({ wrapper, fake: null, turn: turn('hi') });
}

/**
 * A `[hang]` turn (the fake CLI waits for a signal) whose wrapper gets `signal` at its first
 * partial, the way the runner stops a turn.
 */
export function runStoppedBy(wrapper: WrapperOptions['wrapper'], signal: NodeJS.Signals = 'SIGTERM'): Promise<WrapperRun> {
  return runWrapper({
    wrapper,
    turn: turn('[hang] wait'),
    onEvent(ev, { child }) { if (ev.type === 'partial') child.kill(signal); },
  });
}
