/**
 * Where and how an agent process starts, beyond what its profile says (docs/security.md):
 * a dedicated default cwd, refusal of a cwd that holds the bridge's secrets, the bubblewrap
 * sandbox (sandbox/box-args.ts builds it), and run_as.
 */
import { chownSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TurnbridgeError } from '../errors.js';
import type { Profile } from '../profile/types.js';

/** TURNBRIDGE_SANDBOX / agent.sandbox: auto (the box when the probe passes), off, or bwrap (required). */
export type SandboxMode = 'auto' | 'off' | 'bwrap';

export interface LaunchPolicy {
  /** cwd of agents whose profile names none (the bridge's agent workspace). */
  defaultCwd?: string;
  /** The bridge's directory, .env, data dir, config and secret files: never held by an agent's cwd, hidden by the sandbox. */
  protectedPaths?: readonly string[];
  /** The bridge's own directory: an agent cwd below it is allowed (not inside any other protected directory). */
  bridgeDir?: string;
  /** auto: the box when the start-up probe passed (sandbox/probe.ts), else unsandboxed. Absent: off. */
  sandbox?: SandboxMode;
  /** setuid/setgid for the agent (the bridge runs as root). */
  runAs?: { uid: number; gid: number };
  /** The bubblewrap executable (default `bwrap` from PATH). */
  bwrapPath?: string;
}

/** The bridge's agent settings (config's AgentConfig), as the one launch policy of its turns and of doctor's checks. */
export function launchPolicyOf(agent: { workspace: string; protectedPaths: readonly string[]; bridgeDir: string; sandbox: SandboxMode; runAs?: { uid: number; gid: number } }): LaunchPolicy {
  return {
    defaultCwd: agent.workspace,
    protectedPaths: agent.protectedPaths,
    bridgeDir: agent.bridgeDir,
    sandbox: agent.sandbox,
    ...(agent.runAs ? { runAs: agent.runAs } : {}),
  };
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
