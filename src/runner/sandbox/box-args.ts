/**
 * The bubblewrap argv around one agent turn (docs/security.md, "The agent box"). Mounts apply in
 * order, so the list is built in layers:
 *   1. the base of every box (isolation.ts): namespaces, no capabilities, the host read-only, a
 *      private /dev, /proc, /tmp and /run, the seccomp stage when this host allows it;
 *   2. hidden: the operators' homes, the bridge's directories (empty tmpfs over each);
 *   3. shown again read-only: the profile's directory and the agent's own program when they sit
 *      under something hidden (only where that shows nothing hidden below it);
 *   4. masked: the bridge's files (/dev/null over each), after 3 so no re-exposed directory
 *      shows them;
 *   5. the agent's own writable places: the conversation's HOME (or an empty tmpfs), its cwd,
 *      BoxExtras.shown read-only (a worktree's repository git dir) and, over it, BoxExtras.writable
 *      (its outbox, the parts of that git dir a worktree's commits write);
 *   6. read-only: the profile's `sandbox.read` entries (those declared-files.ts binds) and the
 *      turn's attachments;
 *   7. egress: the proxy's socket, and the relay in front of the agent (relay.ts).
 * Pure argv building from what is on disk now; run.ts spawns the result.
 */
import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { LaunchSpec, Profile } from '../../profile/types.js';
import { findCommand } from '../find-command.js';
import { holds, type LaunchPolicy } from '../launch-policy.js';
import { boxBase } from './isolation.js';
import type { BoxSetup } from './probe.js';
import { BOX_PROXY_SOCKET, BOX_PROXY_URL, relayArgv } from './relay.js';
import { stageArgv } from './seccomp.js';

/** The spawn's stdio index on which bwrap writes its info (`--info-fd`: the box init's pid, turn-box.ts). */
export const BOX_INFO_FD = 3;

/** What a sandboxed turn adds to the box beyond the launch itself. */
export interface BoxExtras {
  /** The conversation's HOME, bound writable. Absent: an empty tmpfs at the launch's HOME, gone with the turn. */
  home?: string;
  /** Attachment files (file: paths) the agent reads: shown read-only. */
  attachments?: readonly string[];
  /** The profile's `sandbox.read` entries the agent's user can read, [host path, path in the box]: shown read-only (declared-files.ts). */
  read?: ReadonlyArray<readonly [string, string]>;
  /** Directories shown read-only at their own path before `writable` (a worktree's repository git directory, whose config and hooks are code for whoever runs git there). */
  shown?: readonly string[];
  /** Directories the agent writes besides its cwd and HOME (its outbox, a worktree's objects, refs and own git directory): bound writable at their own path, after everything hidden. */
  writable?: readonly string[];
  /** This turn's egress proxy socket, the loopback ports forwarded to the host through it, and socat. */
  egress?: { socketPath: string; forwards: ReadonlyArray<{ host: string; port: number }>; socat: string };
}

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

/** Layers 2-4: what is hidden, what comes back read-only, what is masked. */
function hideAndReexpose(launch: LaunchSpec, profile: Profile, policy: LaunchPolicy): string[] {
  const a: string[] = [];
  if (isRealDir('/var/run')) a.push('--tmpfs', '/var/run');
  const homes = operatorHomes();
  const hidden: string[] = ['/tmp', '/run', ...homes];
  for (const h of homes) a.push('--tmpfs', h);
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
  const isHidden = (d: string) => hidden.some((h) => holds(h, d));
  // Shown again only if it holds nothing hidden: a bind of a parent would show what lies below it.
  const safe = (d: string) => ![...hiddenDirs, ...homes].some((p) => holds(d, p));
  const exposeRo = new Set<string>();
  if (profile.dir && isHidden(profile.dir)) {
    const parent = dirname(profile.dir);
    if (safe(parent)) exposeRo.add(parent);
    else if (safe(profile.dir)) exposeRo.add(profile.dir);
  }
  // The agent's own program, and a script named by an absolute argument (`node /srv/agent.mjs`):
  // a bridge installed under /tmp or a home would otherwise run an agent it cannot see.
  const program = isAbsolute(launch.command) ? launch.command : findCommand(launch.command, launch.env.PATH, launch.cwd);
  const scripts = launch.args.filter((arg) => isAbsolute(arg) && isRegularFile(arg));
  for (const file of [...(program ? [program] : []), ...scripts]) {
    if (!isHidden(file)) continue;
    for (const d of [dirname(file), packageRoot(file)]) if (safe(d)) exposeRo.add(d);
  }
  for (const d of exposeRo) a.push('--ro-bind', d, d);
  for (const f of maskedFiles) a.push('--ro-bind', '/dev/null', f);
  return a;
}

/**
 * The box around `launch`: bwrap's argv and what the box changes in the agent's environment.
 * `setup` is what the probe found (probe.ts): with a seccomp stage, the agent runs under it.
 */
export function sandboxArgs(launch: LaunchSpec, profile: Profile, policy: LaunchPolicy, setup: BoxSetup, extras: BoxExtras = {}): { command: string; args: string[]; env: Record<string, string> } {
  const a: string[] = ['--info-fd', String(BOX_INFO_FD), ...boxBase(setup.stage), ...hideAndReexpose(launch, profile, policy)];
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
  for (const d of extras.shown ?? []) a.push('--ro-bind-try', d, d);
  for (const d of extras.writable ?? []) a.push('--bind-try', d, d);
  for (const [src, dest] of extras.read ?? []) a.push('--ro-bind-try', src, dest);
  for (const f of extras.attachments ?? []) a.push('--ro-bind-try', f, f);
  a.push('--chdir', launch.cwd);
  let argv = [...(setup.stage ? stageArgv(setup.stage) : []), launch.command, ...launch.args];
  if (extras.egress) {
    const relay = relayArgv(extras.egress.socat, extras.egress.forwards);
    a.push('--bind', extras.egress.socketPath, BOX_PROXY_SOCKET);
    const proxy = BOX_PROXY_URL;
    Object.assign(env, { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy, ALL_PROXY: proxy, NO_PROXY: '', no_proxy: '' });
    argv = [...relay.start, ...(setup.stage ? stageArgv(setup.stage) : []), ...relay.gate, launch.command, ...launch.args];
  }
  a.push('--', ...argv);
  return { command: policy.bwrapPath ?? 'bwrap', args: a, env };
}
