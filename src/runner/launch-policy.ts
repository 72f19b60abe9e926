/**
 * Where and how an agent process starts, beyond what its profile says (docs/security.md):
 * a dedicated default cwd, refusal of a cwd that holds the bridge's secrets, the bubblewrap
 * sandbox, and run_as. Pure argv building; run.ts spawns the result.
 */
import { chownSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TurnbridgeError } from '../errors.js';
import type { LaunchSpec, Profile } from '../profile/types.js';

export interface LaunchPolicy {
  /** cwd of agents whose profile names none (the bridge's agent workspace). */
  defaultCwd?: string;
  /** The bridge's directory, .env, data dir, config and secret files: never held by an agent's cwd, hidden by the sandbox. */
  protectedPaths?: readonly string[];
  /** The bridge's own directory: an agent cwd below it is allowed (not inside any other protected directory). */
  bridgeDir?: string;
  sandbox?: 'off' | 'bwrap';
  /** setuid/setgid for the agent (the bridge runs as root). */
  runAs?: { uid: number; gid: number };
  /** The bubblewrap executable (default `bwrap` from PATH). */
  bwrapPath?: string;
}

/** a === b or a is an ancestor directory of b. */
export function holds(a: string, b: string): boolean {
  const rel = relative(resolve(a), resolve(b));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
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

/**
 * bubblewrap argv around the agent: the host read-only, a new PID namespace with its own /proc
 * (the bridge's /proc/<pid>/environ is not there), the protected paths hidden (empty tmpfs over
 * directories, /dev/null over files), the profile's directory read-only again so its wrapper
 * runs, the agent's cwd, HOME and the temp dir writable, the network kept. Mounts apply in order.
 */
export function sandboxArgs(launch: LaunchSpec, profile: Profile, policy: LaunchPolicy): { command: string; args: string[] } {
  const a: string[] = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  const writable = [tmpdir(), launch.env.HOME].filter((d): d is string => Boolean(d) && d !== '/' && existsSync(d!));
  for (const d of writable) a.push('--bind', d, d);
  const hidden: string[] = [];
  for (const p of policy.protectedPaths ?? []) {
    if (!existsSync(p) || resolve(p) === '/') continue;
    if (statSync(p).isDirectory()) {
      a.push('--tmpfs', p);
      hidden.push(p);
    } else {
      a.push('--ro-bind', '/dev/null', p);
    }
  }
  // Re-expose what the agent needs that may sit under a hidden directory.
  const isHidden = (d: string) => hidden.some((h) => holds(h, d));
  const safe = (d: string) => !(policy.protectedPaths ?? []).some((p) => holds(d, p));
  const exposeRo = new Set<string>();
  if (profile.dir) {
    const parent = dirname(profile.dir);
    if (isHidden(profile.dir)) {
      if (safe(parent)) exposeRo.add(parent);
      else if (safe(profile.dir)) exposeRo.add(profile.dir);
    }
  }
  if (isAbsolute(launch.command) && isHidden(launch.command) && safe(dirname(launch.command))) exposeRo.add(dirname(launch.command));
  for (const d of exposeRo) a.push('--ro-bind', d, d);
  for (const d of writable) if (isHidden(d) && safe(d)) a.push('--bind', d, d);
  a.push('--bind', launch.cwd, launch.cwd, '--chdir', launch.cwd);
  a.push('--unshare-pid', '--share-net', '--die-with-parent', '--new-session', '--', launch.command, ...launch.args);
  return { command: policy.bwrapPath ?? 'bwrap', args: a };
}
