// Runs the shipped profiles (profiles/claude-code, codex, gemini-cli) through the real runner
// with the real CLIs installed by install-clis.mjs, each pointed at a loopback fake model API,
// with a proxy trap for anything else that would leave the machine.
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import pino from 'pino';
import { loadProfile, parseHostRule } from '../../src/profile/index.js';
import { run } from '../../src/runner/index.js';
import type { Profile } from '../../src/profile/types.js';
import type { RunHandlers, RunResult, TurnInput } from '../../src/runner/types.js';
import { ProxyTrap, type ModelApiServer } from '../fakes/model-apis/index.js';
export { alive } from '../integration/agents/wrapper-harness.js';
// @ts-expect-error plain .mjs setup script without types
import { cacheDir, statusFile } from './install-clis.mjs';

export const ROOT = resolve(import.meta.dirname, '../..');
/**
 * The turns run in the agent box by default, as the bridge runs them (TURNBRIDGE_SANDBOX=auto);
 * TB_REAL_CLI_SANDBOX=off runs them on the host (to tell a CLI's failure from the box's).
 */
export const SANDBOX = process.env.TB_REAL_CLI_SANDBOX === 'off' ? 'off' : 'auto';
/**
 * TB_REAL_CLI_RUN_AS=uid:gid (the tests run as root): the agents run as that user, as the bridge
 * runs them under TURNBRIDGE_RUN_AS. Their HOME is handed to that user. (Running the whole suite
 * as a plain user tests the other non-root case: a bridge that is not root.)
 */
export const RUN_AS = ((v) => {
  if (!v) return undefined;
  const m = /^(\d+):(\d+)$/.exec(v.trim());
  if (!m) throw new Error(`TB_REAL_CLI_RUN_AS=${v}: expected uid:gid`);
  return { uid: Number(m[1]), gid: Number(m[2]) };
})(process.env.TB_REAL_CLI_RUN_AS);
/** Whether the CLIs run as root (they treat root apart: claude's IS_SANDBOX, gemini's system defaults). */
export const AGENT_IS_ROOT = (RUN_AS?.uid ?? process.getuid?.()) === 0;
export type CliName = 'claude' | 'codex' | 'gemini';
const PROFILE: Record<CliName, string> = { claude: 'claude-code', codex: 'codex', gemini: 'gemini-cli' };

/** The installed CLI's executable, or why it is missing (the suite skips with that reason). */
export function realCli(name: CliName): { bin: string } | { skip: string } {
  if (process.env.TB_REAL_CLI === '0') return { skip: `real ${name} not used: TB_REAL_CLI=0` };
  const file: string = statusFile();
  if (!existsSync(file)) return { skip: `real ${name} not installed yet: test/run.mjs (npm test) installs the CLIs; no ${file}` };
  const s = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, { bin?: string; error?: string }>)[name];
  if (s?.bin && existsSync(s.bin)) return { bin: s.bin };
  return { skip: `real ${name} ${s?.error ?? `missing from ${file}`}` };
}

/** The skip option for node:test: false when the CLI is there, else the reason. */
export function skipUnless(name: CliName): string | false {
  const c = realCli(name);
  return 'skip' in c ? c.skip : false;
}

export interface TurnRun {
  result: RunResult;
  /** Runner warnings (e.g. "agent still running after grace: SIGKILL"). */
  warnings: string[];
  stderr: string;
  pid: number | undefined;
}

/**
 * One CLI's test world: a temp HOME (the CLI's login, sessions and settings live there; also the
 * working folder), the fake model API, and the proxy trap.
 */
export class RealCliWorld<Api extends ModelApiServer> {
  readonly home: string;
  readonly trap = new ProxyTrap();
  private profile!: Profile;

  constructor(readonly name: CliName, readonly api: Api) {
    // Not under /tmp: codex refuses to create its sandbox helper (codex-linux-sandbox) in a
    // CODEX_HOME below a temporary directory, and then every sandboxed command fails.
    const homes = join(cacheDir() as string, 'homes');
    mkdirSync(homes, { recursive: true });
    this.home = mkdtempSync(join(homes, `${name}-`));
  }

  async start(): Promise<this> {
    // Before any server starts: a world that fails here leaves nothing open to hang the file.
    if (RUN_AS) {
      try { assertReachable(this.name, [dirname(this.home), ...cliInstall(this.name)]); } catch (e) { rmSync(this.home, { recursive: true, force: true }); throw e; }
    }
    await Promise.all([this.api.start(), this.trap.start()]);
    this.profile = { ...(await loadProfile(join(ROOT, 'profiles', PROFILE[this.name], 'profile.yaml'))), cwd: this.home };
    if (this.name === 'codex') {
      mkdirSync(join(this.home, '.codex'), { recursive: true });
      // Curated-plugin sync would reach github.com and chatgpt.com at every start.
      writeFileSync(join(this.home, '.codex', 'config.toml'), 'check_for_update_on_startup = false\n\n[features]\nplugins = false\n\n[analytics]\nenabled = false\n');
    }
    if (this.name === 'gemini') {
      mkdirSync(join(this.home, '.gemini'), { recursive: true });
      // As root the wrapper's system-defaults.json selects the auth type and 3 attempts; as another
      // user gemini skips that file, so the test does what the profile README tells such users.
      const asUser = !AGENT_IS_ROOT ? { security: { auth: { selectedType: 'gemini-api-key' } } } : {};
      writeFileSync(join(this.home, '.gemini', 'settings.json'), JSON.stringify({
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, ...(!AGENT_IS_ROOT ? { maxAttempts: 3 } : {}) },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        ...asUser,
      }));
    }
    if (RUN_AS) chownTree(this.home, RUN_AS);
    return this;
  }

  /** The bridge's environment: only what the profile declares reaches the wrapper. */
  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const c = realCli(this.name);
    if ('skip' in c) throw new Error(c.skip);
    const common = {
      PATH: `${dirname(c.bin)}:${process.env.PATH ?? ''}`,
      HOME: this.home,
      HTTPS_PROXY: this.trap.url,
      NO_PROXY: '127.0.0.1,localhost',
    };
    const perCli: Record<CliName, Record<string, string>> = {
      claude: { ANTHROPIC_API_KEY: 'sk-ant-test-key', ANTHROPIC_BASE_URL: this.api.url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      codex: { CODEX_API_KEY: 'sk-test-codex-key', CODEX_BASE_URL: `${this.api.url}/v1` },
      gemini: { GEMINI_API_KEY: 'test-gemini-key', GOOGLE_GEMINI_BASE_URL: this.api.url, GEMINI_MODEL: 'gemini-2.5-flash' },
    };
    return { ...common, ...perCli[this.name], ...extra };
  }

  /**
   * One turn through loadProfile() + run(), as the bridge runs it; `variant` names another
   * shipped profile of this CLI (e.g. 'claude-code-plan').
   */
  async turn(turn: TurnInput, { handlers = {}, env = {}, signal, profile = {}, box = true, variant }: { handlers?: RunHandlers; env?: Record<string, string>; signal?: AbortSignal; profile?: Partial<Profile>; box?: boolean; variant?: string } = {}): Promise<TurnRun> {
    const base = variant ? { ...(await loadProfile(join(ROOT, 'profiles', variant, 'profile.yaml'))), cwd: this.home } : this.profile;
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => { warnings.push(String(JSON.parse(line).msg)); } });
    let stderr = '';
    let pid: number | undefined;
    const result = await run(this.boxed({ ...base, ...profile }), turn, {
      ...handlers,
      onStderr: (c) => { stderr += c; handlers.onStderr?.(c); },
      onSpawn: (p) => { pid = p; handlers.onSpawn?.(p); },
    }, { env: this.env(env), logger, signal, timeoutMs: 180_000, launch: { sandbox: box ? SANDBOX : 'off', ...(RUN_AS ? { runAs: RUN_AS } : {}) }, dirs: { home: this.home } });
    return { result, warnings, stderr, pid };
  }

  /**
   * The runner for a real bridge (createBridge's runTurn): each turn the bridge starts runs as
   * turn() runs it (this world's environment, HOME and box), with the bridge's handlers, signal
   * and launch policy, so what a person clicks in the chat reaches the real CLI.
   */
  bridgeRunner(): typeof run {
    return (profile, turn, handlers = {}, options = {}) => run(this.boxed({ ...profile, cwd: this.home }), turn, handlers, {
      ...options,
      env: this.env(),
      timeoutMs: 180_000,
      launch: { ...options.launch, sandbox: SANDBOX, ...(RUN_AS ? { runAs: RUN_AS } : {}) },
      dirs: { home: this.home },
    });
  }

  /**
   * The shipped profile as the box needs it here: the fake model API (loopback, so only by its
   * exact host:port) added to its sandbox.allow_hosts, and the CLI's install folder (in the
   * cache under the operator's HOME, which the box hides) to its sandbox.read.
   */
  private boxed(profile: Profile): Profile {
    const install = cliInstall(this.name)[0];
    const sandbox = profile.sandbox ?? { read: [], allowHosts: [] };
    return { ...profile, sandbox: { read: [...sandbox.read, ...(install ? [install] : [])], allowHosts: [...sandbox.allowHosts, parseHostRule(new URL(this.api.url).host)!] } };
  }

  /** Processes still running with this world's HOME (the wrapper, the CLI, anything they started). */
  lingering(): number[] {
    const mark = `HOME=${this.home}\0`;
    const out: number[] = [];
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        if (`${readFileSync(`/proc/${d}/environ`, 'latin1')}\0`.includes(mark)) out.push(Number(d));
      } catch { /* gone or not ours */ }
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all([this.api.close(), this.trap.close()]);
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** Resolves with the file's content once `name` exists in `dir` and is not empty (fs.watch, no polling). */
export function fileAppears(dir: string, name: string): Promise<string> {
  return new Promise((resolveFile) => {
    const read = () => { try { return readFileSync(join(dir, name), 'utf8'); } catch { return ''; } };
    const watcher = watch(dir, () => { const t = read(); if (t.endsWith('\n')) { watcher.close(); resolveFile(t); } });
    const now = read();
    if (now.endsWith('\n')) { watcher.close(); resolveFile(now); }
  });
}

/** Files below `dir` whose text contains `needle` (the CLI's own session records). */
export function filesContaining(dir: string, needle: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) { try { if (readFileSync(p, 'utf8').includes(needle)) out.push(p); } catch { /* unreadable */ } }
    }
  };
  walk(dir);
  return out;
}

/** The forwarded output text (what the chat shows as the answer) plus the final reply. */
export function answer(r: RunResult): string {
  return r.partials.filter((p) => p.role !== 'thinking').map((p) => p.text).join('') + r.reply;
}

/** The thinking partials joined. */
export function thinking(r: RunResult): string {
  return r.partials.filter((p) => p.role === 'thinking').map((p) => p.text).join('');
}

/** The task lines among the thinking (lines starting with a task glyph, profiles/lib/task-line.mjs), in order. */
export function taskLines(r: RunResult): string[] {
  return thinking(r).split('\n').filter((l) => /^[◐☐☑]/.test(l));
}

/** The CLI's install folder in the cache (what the box is given to read), when it is installed. */
function cliInstall(name: CliName): string[] {
  const c = realCli(name);
  return 'bin' in c ? [resolve(dirname(c.bin), '../..')] : [];
}

/**
 * Under TB_REAL_CLI_RUN_AS the box is set up by the agents' user (bwrap runs as it), so the CLI's
 * install folder and the world's HOME must be reachable by it; the default cache is under root's
 * HOME (0700), where every turn failed with bwrap's "Can't find source path …: Permission denied".
 * Asked of the user itself (a process started as it, as the runner starts bwrap: no supplementary
 * groups), so a failure here is exactly that one, said once, naming the setting that fixes it.
 */
function assertReachable(name: CliName, paths: string[]): void {
  const user = RUN_AS!;
  for (const p of paths) {
    const r = spawnSync('test', ['-r', p, '-a', '-x', p], { uid: user.uid, gid: user.gid });
    if (r.status === 0) continue;
    throw new Error(`real ${name}: TB_REAL_CLI_RUN_AS=${user.uid}:${user.gid} cannot reach ${p} (a folder above it is closed to that user, as /root is): `
      + `point TB_REAL_CLI_CACHE at a cache that user can read, e.g. TB_REAL_CLI_CACHE=/var/cache/turnbridge/real-clis (root's, 0755; test/run.mjs installs the CLIs there once), as .ci/run does`);
  }
}

function chownTree(p: string, o: { uid: number; gid: number }): void {
  chownSync(p, o.uid, o.gid);
  for (const e of readdirSync(p, { withFileTypes: true })) {
    if (e.isDirectory()) chownTree(join(p, e.name), o);
    else chownSync(join(p, e.name), o.uid, o.gid);
  }
}
