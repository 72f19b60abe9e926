/**
 * The bridge as its own process, for the kill -9 tests (Slack and Discord): `npm start`
 * (src/main.ts) spawned in its own process group, on a data directory that outlives it, and what
 * both platforms' crash tests read around it (the bridge's own database, agent pids, polling).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openState, createSqliteStore, type State, type LedgerRecord } from '../../src/state/index.js';
import { silentLogger } from '../../src/log.js';
import { pollUntil } from './poll-until.js';

export interface BridgeChild {
  readonly pid: number;
  /** The HTTP base URL (from the start line it prints). */
  readonly url: Promise<string>;
  /** Everything it wrote to stderr/stdout (for failure messages). */
  output(): string;
  /** kill -9 its whole process group (the bridge; the agents live in groups of their own). */
  kill9(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
  readonly exited: Promise<number | null>;
}

export function startBridgeChild(opts: { dataDir: string; env: NodeJS.ProcessEnv; config?: string }): BridgeChild {
  const configFile = join(opts.dataDir, 'turnbridge.yaml');
  writeFileSync(configFile, opts.config ?? '');
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(process.cwd(), 'src/main.ts'), '--config', configFile], {
    cwd: process.cwd(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH, HOME: process.env.HOME,
      TURNBRIDGE_DATA_DIR: opts.dataDir, PORT: '0', LOG_LEVEL: process.env.TB_CRASH_LOG ?? 'warn',
      // The test's people may use it; the agents work beside the data dir (never inside it: docs/security.md).
      TURNBRIDGE_ACCESS: 'open', TURNBRIDGE_WORKSPACE: `${opts.dataDir}-workspace`,
      // These tests are about what recovery does with a dead bridge's agents, which outlive it only
      // unsandboxed (a host where the box cannot start): in the box they die with the bridge
      // (test/e2e/sandbox/bridge-kill.test.ts). A test may still ask for the box through opts.env.
      TURNBRIDGE_SANDBOX: 'off',
      ...opts.env,
    },
  });
  let out = '';
  let resolveUrl!: (u: string) => void;
  const url = new Promise<string>((r) => (resolveUrl = r));
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /readiness at (http:\/\/\S+?)readyz/.exec(out) ?? /local chat at (http:\/\/\S+)/.exec(out);
    if (m) resolveUrl(m[1]!.endsWith('/') ? m[1]! : `${m[1]!}/`);
  });
  child.stderr!.on('data', (d: Buffer) => void (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    pid: child.pid!,
    url,
    output: () => out,
    exited,
    async kill9() {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    },
    async stop() {
      try {
        process.kill(child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      await exited;
    },
  };
}

/** Poll /readyz until it answers 200 (the bridge finished its crash recovery). */
export async function untilReady(child: BridgeChild, timeoutMs = 30_000): Promise<{ status: string; platforms: Array<{ name: string; state: string }> }> {
  const base = await Promise.race([child.url, child.exited.then((c) => { throw new Error(`bridge exited (${c}) before it started:\n${child.output()}`); })]);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${base}readyz`).catch(() => undefined);
    if (res?.status === 200) return (await res.json()) as never;
    if (Date.now() > deadline) throw new Error(`bridge not ready after ${timeoutMs} ms: ${res ? await res.text() : 'no answer'}\n${child.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Alive and not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export type ReplyRecord = Extract<LedgerRecord, { kind: 'reply' }>;
export type AgentRecord = Extract<LedgerRecord, { kind: 'agent' }>;

/** The reply record of the user message with this source id (`channel:ts`); undefined once its turn finished. */
export function replyOf(records: LedgerRecord[], sourceId: string): ReplyRecord | undefined {
  return records.find((r): r is ReplyRecord => r.kind === 'reply' && r.message.source?.id === sourceId);
}

/**
 * One crash test's world: a data dir that outlives the bridges started on it, the bridge's own
 * database opened beside them (WAL: readers never block the writer), and a poller whose timeout
 * message carries the newest bridge's output. `cleanup()` kills what is left and removes the dirs.
 */
export async function crashWorld(env: NodeJS.ProcessEnv, config: string) {
  const dataDir = await mkdtemp(join(tmpdir(), 'tb-crash-'));
  const children: BridgeChild[] = [];
  const state: State = openState(createSqliteStore({ file: join(dataDir, 'turnbridge.sqlite') }), { logger: silentLogger });
  const start = (): BridgeChild => {
    const child = startBridgeChild({ dataDir, env, config });
    children.push(child);
    return child;
  };
  const until = <T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string): Promise<T> =>
    pollUntil(check, what, 30_000, () => children.at(-1)?.output() ?? '');
  const agents = (records: LedgerRecord[]): AgentRecord[] => records.filter((r): r is AgentRecord => r.kind === 'agent');
  return {
    dataDir, state, start, until, replyOf, agents,
    ledger: () => state.ledger.all(),
    async cleanup() {
      for (const c of children) await c.kill9();
      await state.close().catch(() => undefined);
      await rm(dataDir, { recursive: true, force: true });
      await rm(`${dataDir}-workspace`, { recursive: true, force: true });
    },
  };
}

/** What a fake emits on each call it answered: the kill point's trigger. */
interface Emitting<A extends unknown[]> {
  on(event: string, listener: (...args: A) => void): unknown;
  off(event: string, listener: (...args: A) => void): unknown;
}

/**
 * A seeded crash loop's kill point: kill -9 `bridge` `delayMs` after `landed` first holds (checked
 * on each `event` of `fake`); 0 = at once, as the fake answers, before the bridge can read the
 * answer. Resolves once the bridge is dead.
 */
export function killAfter<A extends unknown[]>(fake: Emitting<A>, event: string, landed: (...args: A) => boolean, delayMs: number, bridge: BridgeChild): Promise<void> {
  return new Promise<void>((resolve) => {
    const listener = (...args: A) => {
      if (!landed(...args)) return;
      fake.off(event, listener);
      if (delayMs === 0) void bridge.kill9().then(resolve);
      else setTimeout(() => void bridge.kill9().then(resolve), delayMs);
    };
    fake.on(event, listener);
  });
}

/** Kill delays for a seeded crash loop, denser near 0 (where a crash finds nothing recorded yet): 300 ms * r^3. */
export function killDelays(rand: () => number): () => number {
  return () => Math.round(300 * rand() ** 3);
}

/** The crash world of a Slack crash test: the bridge on `fake` (rates scaled x20) with the scripted test agent. */
export function slackCrashWorld(fake: { botToken: string; appToken: string; apiUrl: string }, profile: string, slack = '') {
  const config = `limits:\n  running_per_user: 10\n  waiting_per_user: 10\nslack:\n  rate_scale: 20\n  api_retries: 0\n  reconnect_base_ms: 50\n  reconnect_max_ms: 200\n${slack}`;
  return crashWorld({ SLACK_BOT_TOKEN: fake.botToken, SLACK_APP_TOKEN: fake.appToken, SLACK_API_URL: fake.apiUrl, TURNBRIDGE_PROFILE: profile }, config);
}

/** The crash world of a Discord crash test: the bridge on `fake` with the scripted test agent. */
export function discordCrashWorld(fake: { token: string; apiUrl: string }, profile: string) {
  return crashWorld({ DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl, TURNBRIDGE_PROFILE: profile }, 'limits:\n  running_per_user: 10\n  waiting_per_user: 10\n');
}
