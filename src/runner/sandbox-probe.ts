import { spawnSync } from 'node:child_process';
import { BASE_MOUNTS, ISOLATION_FLAGS } from './sandbox/index.js';

/** TURNBRIDGE_SANDBOX / agent.sandbox: auto (the box when the probe passes), off, or bwrap (required). */
export type SandboxMode = 'auto' | 'off' | 'bwrap';

/**
 * Whether bubblewrap can make the box here, with the very flags a turn uses (isolation.ts):
 * containers without CAP_SYS_ADMIN, Docker's default seccomp profile and kernels with user
 * namespaces off all refuse one of them. Returns the reason it cannot, or null when a boxed
 * `true` ran.
 */
export function sandboxProblem(bwrapPath = 'bwrap'): string | null {
  const r = spawnSync(bwrapPath, [...ISOLATION_FLAGS, ...BASE_MOUNTS, '--', 'true'], { encoding: 'utf8', timeout: 10_000 });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${bwrapPath} is not installed (Debian: apt-get install bubblewrap)` : `${bwrapPath} could not start (${code ?? r.error.message})`;
  }
  if (r.status !== 0) return `${bwrapPath} cannot make the agent box here: ${(r.stderr || `exit ${r.status}`).trim().split('\n')[0]}`;
  return null;
}

const probed = new Map<string, string | null>();

/** sandboxProblem, once per bwrap path for the life of the process (start-up, then every turn). */
export function cachedSandboxProblem(bwrapPath = 'bwrap'): string | null {
  if (!probed.has(bwrapPath)) probed.set(bwrapPath, sandboxProblem(bwrapPath));
  return probed.get(bwrapPath)!;
}

/** What a requested mode comes to here. */
export type SandboxDecision =
  | { inForce: 'bwrap'; requested: SandboxMode }
  | { inForce: 'off'; requested: 'off' }
  | { inForce: 'off'; requested: 'auto'; problem: string }
  | { inForce: 'refused'; requested: 'bwrap'; problem: string };

/** auto: the box when the probe passes, else unsandboxed; bwrap: the box or nothing (refused). */
export function decideSandbox(requested: SandboxMode, bwrapPath = 'bwrap'): SandboxDecision {
  if (requested === 'off') return { inForce: 'off', requested };
  const problem = cachedSandboxProblem(bwrapPath);
  if (problem === null) return { inForce: 'bwrap', requested };
  return requested === 'auto' ? { inForce: 'off', requested, problem } : { inForce: 'refused', requested, problem };
}

/** What doctor and the start-up warning tell an operator to change when the box cannot start. */
export function sandboxFix(problem: string): string {
  if (/not installed/.test(problem)) return 'install bubblewrap (Debian: apt-get install bubblewrap)';
  return 'let bubblewrap make user namespaces: on the host `sysctl -w kernel.unprivileged_userns_clone=1` (Debian) or '
    + '`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu 24.04); in Docker run with '
    + '`--security-opt seccomp=unconfined --security-opt apparmor=unconfined` (or a seccomp profile that allows clone/unshare of namespaces); '
    + 'or set TURNBRIDGE_SANDBOX=off to run agents unsandboxed on purpose (docs/security.md)';
}
