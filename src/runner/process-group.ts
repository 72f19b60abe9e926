import type { ChildProcess } from 'node:child_process';

/**
 * Signal the agent's whole process group (it was spawned detached, so it leads its own group and
 * its children share it). Falls back to the process alone where groups are not available.
 * Returns false when nothing was there to signal.
 */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  const pid = child.pid;
  if (pid === undefined) return false;
  if (process.platform !== 'win32') {
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      // ESRCH: the group is gone; fall through to the leader alone.
    }
  }
  try {
    return child.kill(signal);
  } catch {
    return false;
  }
}
