/**
 * Where and how an agent process starts, beyond what its profile says (docs/security.md):
 * a dedicated default cwd, refusal of a cwd that holds the bridge's secrets, the bubblewrap
 * sandbox, and run_as. Pure argv building; run.ts spawns the result.
 */
import { chownSync, existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TurnbridgeError } from '../errors.js';
import type { LaunchSpec, Profile } from '../profile/types.js';
import { forwardListenAddress } from '../profile/allow-hosts.js';
import { BASE_MOUNTS, ISOLATION_FLAGS } from './sandbox/index.js';
import type { SandboxMode } from './sandbox-probe.js';

export interface LaunchPolicy {
  /** cwd of agents whose profile names none (the bridge's agent workspace). */
  defaultCwd?: string;
  /** The bridge's directory, .env, data dir, config and secret files: never held by an agent's cwd, hidden by the sandbox. */
  protectedPaths?: readonly string[];
  /** The bridge's own directory: an agent cwd below it is allowed (not inside any other protected directory). */
  bridgeDir?: string;
  /** auto: the box when the start-up probe passed (sandbox-probe.ts), else unsandboxed. Absent: off. */
  sandbox?: SandboxMode;
  /** setuid/setgid for the agent (the bridge runs as root). */
  runAs?: { uid: number; gid: number };
  /** The bubblewrap executable (default `bwrap` from PATH). */
  bwrapPath?: string;
}

/** a === b or a is an ancestor directory of b. */
export function holds(a: string, b: string): boolean {
  const rel = relative(resolve(a), resolve(b));
  // `..foo` is a child named so, not a way up.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Throws TB_CWD_UNSAFE when the agent would start in a directory holding (or inside) a protected path. */
export function checkAgentCwd(cwd: string, policy: LaunchPolicy, profile: Profile): void {
  for (const p of policy.protectedPaths ?? []) {
    const holdsIt = holds(cwd, p);
    const insideIt = !holdsIt && resolve(p) !== resolve(policy.bridgeDir ?? '/') && holds(p, cwd);
    if (!holdsIt && !insideIt) continue;
    throw new TurnbridgeError('TB_CWD_UNSAFE', `${profile.file ?? 'profile'}: the agent's working directory ${cwd} ${holdsIt ? 'holds' : 'is inside'} ${p}, which agents must not see`, {
      file: profile.file,
      field: 'cwd',
      found: cwd,
      expected: 'a directory outside the bridge\'s directory, .env and data dir',
      hint: 'unset cwd in the profile to use the agent workspace (TURNBRIDGE_WORKSPACE / agent.workspace), or point it at a project directory of its own',
    });
  }
}

/** Attachments live in a 0700 temp dir of the bridge's user: hand them to the run_as user. */
export function handOverAttachments(urls: readonly string[], runAs: { uid: number; gid: number }): void {
  const dirs = new Set<string>();
  for (const url of urls) {
    if (!url.startsWith('file:')) continue;
    const path = fileURLToPath(url);
    try {
      chownSync(path, runAs.uid, runAs.gid);
      dirs.add(dirname(path));
    } catch { /* gone or not ours: the agent reports the missing file */ }
  }
  for (const d of dirs) {
    try { chownSync(d, runAs.uid, runAs.gid); } catch { /* as above */ }
  }
}

/** What a sandboxed turn adds to the box beyond the launch itself. */
export interface BoxExtras {
  /** The conversation's HOME, bound writable. Absent: an empty tmpfs at the launch's HOME, gone with the turn. */
  home?: string;
  /** Attachment files (file: paths) the agent reads: shown read-only. */
  attachments?: readonly string[];
  /** Directories the agent writes besides its cwd and HOME (its outbox, a worktree's git directory): bound writable. */
  writable?: readonly string[];
  /** This turn's egress proxy socket and the loopback ports forwarded to the host through it. */
  egress?: { socketPath: string; forwards: ReadonlyArray<{ host: string; port: number }> };
}

/** Where the egress proxy's socket appears inside the box, and the in-box port its relay listens on. */
export const BOX_PROXY_SOCKET = '/run/turnbridge/proxy.sock';
export const BOX_PROXY_PORT = 3128;

/** The operators' home directories: hidden in the box (only `sandbox.read` entries come back). */
function operatorHomes(): string[] {
  return [...new Set(['/root', '/home', homedir()])].filter((d) => d !== '/' && isRealDir(d));
}

function isRegularFile(p: string): boolean {
  try { return statSync(p).isFile(); } catch { return false; }
}

function isRealDir(p: string): boolean {
  try { return lstatSync(p).isDirectory(); } catch { return false; }
}

/** The installed package an executable belongs to (nearest package.json above its real path), else its directory. */
function packageRoot(file: string): string {
  let real: string;
  try { real = realpathSync(file); } catch { return dirname(file); }
  // Two levels up at most: a package's bin/ (codex's bin/codex.js needs its vendor/ beside it).
  for (let d = dirname(real), up = 0; up < 3 && d !== dirname(d); d = dirname(d), up++) {
    if (basename(d) === 'node_modules') break;
    if (existsSync(join(d, 'package.json'))) return d;
  }
  return dirname(real);
}

/** A bare command as the box will find it on PATH (bwrap execvp's it with the agent's PATH). */
function onPath(command: string, path: string | undefined): string | undefined {
  if (isAbsolute(command)) return command;
  if (command.includes('/')) return undefined;
  for (const d of (path ?? '').split(':')) {
    if (!d) continue;
    const f = join(d, command);
    try { if (statSync(f).isFile()) return f; } catch { /* next */ }
  }
  return undefined;
}

/** `~/x` of a profile's sandbox.read: the operator's x, shown at the same place under the box's HOME. */
function readEntry(entry: string, boxHome: string | undefined): [string, string] {
  if (entry === '~' || entry.startsWith('~/')) {
    const rest = entry === '~' ? '' : entry.slice(2);
    return [join(homedir(), rest), join(boxHome ?? homedir(), rest)];
  }
  return [entry, entry];
}

/** The in-box relay: the proxy's port on the box's loopback, loopback forwards, then the agent. */
function egressScript(forwards: ReadonlyArray<{ host: string; port: number }>): string {
  const hex = (addr: string, port: number) => `${addr.split('.').map(Number).reverse().map((n) => n.toString(16).padStart(2, '0')).join('').toUpperCase()}:${port.toString(16).padStart(4, '0').toUpperCase()}`;
  const listens = [['127.0.0.1', BOX_PROXY_PORT] as const, ...forwards.map((f) => [forwardListenAddress(f.host), f.port] as const)];
  const lines = [
    `socat TCP-LISTEN:${BOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${BOX_PROXY_SOCKET} >/dev/null & p=$!`,
    ...forwards.map((f) => `socat TCP-LISTEN:${f.port},bind=${forwardListenAddress(f.host)},fork,reuseaddr PROXY:127.0.0.1:${f.host}:${f.port},proxyport=${BOX_PROXY_PORT} >/dev/null &`),
    // Until every relay listens (socat takes a millisecond or two) the agent would find nothing
    // there: read /proc/net/tcp with the shell's own read and kill (no process per look).
    'ready() { n=0; for a; do while read -r _ l _ st _; do if [ "$l" = "$a" ] && [ "$st" = 0A ]; then n=$((n+1)); break; fi; done < /proc/net/tcp; done; [ "$n" -eq $# ]; }',
    `until ready ${listens.map(([a, port]) => hex(a, port)).join(' ')}; do kill -0 $p 2>/dev/null || { echo "turnbridge: the sandbox's network relay (socat) did not start" >&2; exit 125; }; done`,
    'exec "$@"',
  ];
  return lines.join('\n');
}

/**
 * bubblewrap argv around the agent (docs/security.md, "The agent box"): the isolation flags of
 * sandbox/isolation.ts; the host read-only with a private /tmp and /run; the operators' homes,
 * the bridge's directory, .env, data dir and secret files hidden (empty tmpfs over directories,
 * /dev/null over files); the profile's directory and the agent's own program read-only again;
 * the conversation's HOME (or an empty one), the agent's cwd and `writable` places; the profile's
 * `sandbox.read` entries and the turn's attachments read-only; the egress proxy's socket with a
 * relay in front of it when the profile allows any host. Mounts apply in order.
 * Returns the argv and what the box changes in the agent's environment.
 */
export function sandboxArgs(launch: LaunchSpec, profile: Profile, policy: LaunchPolicy, extras: BoxExtras = {}): { command: string; args: string[]; env: Record<string, string> } {
  const a: string[] = [...ISOLATION_FLAGS, ...BASE_MOUNTS];
  for (const run of ['/run', '/var/run']) if (isRealDir(run)) a.push('--tmpfs', run);
  const hidden: string[] = ['/tmp', '/run'];
  for (const h of operatorHomes()) {
    a.push('--tmpfs', h);
    hidden.push(h);
  }
  // Protected files are masked after the re-exposures below, so that a directory shown again
  // (the profile's, the agent's program's) cannot show them; protected directories stay empty.
  const maskedFiles: string[] = [];
  const hiddenDirs: string[] = [];
  for (const p of policy.protectedPaths ?? []) {
    if (!existsSync(p) || resolve(p) === '/') continue;
    if (statSync(p).isDirectory()) {
      a.push('--tmpfs', p);
      hidden.push(p);
      hiddenDirs.push(p);
    } else {
      maskedFiles.push(p);
    }
  }
  // Re-expose what the agent needs that may sit under a hidden directory.
  const isHidden = (d: string) => hidden.some((h) => holds(h, d));
  // Shown again only if it holds nothing hidden: a bind of a parent would show what lies below it.
  const homes = operatorHomes();
  const safe = (d: string) => ![...hiddenDirs, ...homes].some((p) => holds(d, p));
  const exposeRo = new Set<string>();
  if (profile.dir) {
    const parent = dirname(profile.dir);
    if (isHidden(profile.dir)) {
      if (safe(parent)) exposeRo.add(parent);
      else if (safe(profile.dir)) exposeRo.add(profile.dir);
    }
  }
  // The agent's own program, and a script named by an absolute argument (`node /srv/agent.mjs`):
  // a bridge installed under /tmp or a home would otherwise run an agent it cannot see.
  const program = onPath(launch.command, launch.env.PATH);
  const scripts = launch.args.filter((arg) => isAbsolute(arg) && isRegularFile(arg));
  for (const file of [...(program ? [program] : []), ...scripts]) {
    if (!isHidden(file)) continue;
    for (const d of [dirname(file), packageRoot(file)]) if (safe(d)) exposeRo.add(d);
  }
  for (const d of exposeRo) a.push('--ro-bind', d, d);
  for (const f of maskedFiles) a.push('--ro-bind', '/dev/null', f);
  // TURNBRIDGE_AGENT_BOX tells a wrapper it runs in the box (the codex wrapper then leaves its own
  // bwrap-based sandbox off: it cannot nest namespaces in here, and the box is the stronger one).
  const env: Record<string, string> = { TMPDIR: '/tmp', TURNBRIDGE_AGENT_BOX: 'bwrap' };
  const boxHome = extras.home ?? launch.env.HOME;
  if (extras.home) {
    a.push('--bind', extras.home, extras.home);
    env.HOME = extras.home;
  } else if (boxHome && boxHome !== '/') {
    a.push('--tmpfs', boxHome);
  }
  a.push('--bind', launch.cwd, launch.cwd);
  for (const d of extras.writable ?? []) a.push('--bind-try', d, d);
  for (const entry of profile.sandbox?.read ?? []) {
    const [src, dest] = readEntry(entry, boxHome);
    a.push('--ro-bind-try', src, dest);
  }
  for (const f of extras.attachments ?? []) a.push('--ro-bind-try', f, f);
  a.push('--chdir', launch.cwd);
  let argv = [launch.command, ...launch.args];
  if (extras.egress) {
    a.push('--bind', extras.egress.socketPath, BOX_PROXY_SOCKET);
    const proxy = `http://127.0.0.1:${BOX_PROXY_PORT}`;
    Object.assign(env, { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy, ALL_PROXY: proxy, NO_PROXY: '', no_proxy: '' });
    argv = ['/bin/sh', '-c', egressScript(extras.egress.forwards), 'turnbridge-box', ...argv];
  }
  a.push('--', ...argv);
  return { command: policy.bwrapPath ?? 'bwrap', args: a, env };
}
