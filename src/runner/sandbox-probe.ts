import { spawnSync } from 'node:child_process';

/**
 * Whether bubblewrap can make its namespaces here (containers without CAP_SYS_ADMIN, Docker's
 * default seccomp profile and kernels with user namespaces off all refuse). Returns the reason
 * it cannot, or null when a sandboxed `true` ran.
 */
export function sandboxProblem(bwrapPath = 'bwrap'): string | null {
  const r = spawnSync(bwrapPath, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--new-session', '--', 'true'], {
    encoding: 'utf8', timeout: 10_000,
  });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${bwrapPath} is not installed (Debian: apt-get install bubblewrap)` : `${bwrapPath} could not start (${code ?? r.error.message})`;
  }
  if (r.status !== 0) return `${bwrapPath} failed: ${(r.stderr || `exit ${r.status}`).trim().split('\n')[0]}`;
  return null;
}
