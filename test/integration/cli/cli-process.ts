// Runs the real CLI (node bin/turnbridge.js) as a child process, the way a person or a script would.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const BIN = join(ROOT, 'bin/turnbridge.js');
export const FIXTURES = join(ROOT, 'test/fixtures/cli');
export const ECHO = join(ROOT, 'profiles/echo/profile.yaml');
export const DEMO = join(ROOT, 'profiles/demo/profile.yaml');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  /** Written to stdin, which is then closed. */
  input?: string;
  cwd?: string;
  /** Run with `env` only, not merged over this process's environment. */
  clearEnv?: boolean;
}

export function runCli(args: string[], opts: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const env: NodeJS.ProcessEnv = opts.clearEnv ? { ...opts.env } : { ...process.env, ...opts.env };
    delete env.LOG_LEVEL;
    delete env.NO_COLOR;
    const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * A temp HOME for the CLI, removed by the returned cleanup: the demo keeps its session files in
 * the agent's HOME, which in the sandbox is the CLI's private one below it (~/.turnbridge/cli-home).
 */
export function demoEnv(): { env: Record<string, string>; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tb-cli-demo-'));
  return { env: { DEMO_DELAY_MS: '1', HOME: dir }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function parseJsonLine(stdout: string): Record<string, unknown> {
  const lines = stdout.split('\n').filter((l) => l.length > 0);
  if (lines.length !== 1) throw new Error(`expected exactly one line of JSON on stdout, got ${lines.length}: ${stdout.slice(0, 500)}`);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}
