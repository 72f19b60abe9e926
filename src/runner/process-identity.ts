/**
 * A process is named by its pid AND its start time: after a crash and a restart, a recorded pid
 * may belong to another process by now. Linux gives the start time in /proc/<pid>/stat (field
 * 22, clock ticks since boot); elsewhere there is no identity, and nothing is ever killed.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** The process's start time as the OS reports it, or undefined (gone, or not knowable here). */
export function processStartTime(pid: number): string | undefined {
  if (process.platform !== 'linux' || !(pid > 0)) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19];
  } catch {
    return undefined;
  }
}

export type EndOutcome = 'ended' | 'gone' | 'not-the-same-process';

/**
 * End the process group a crashed bridge left behind: SIGTERM to the group, then SIGKILL after
 * `graceMs` if its leader is still there. Only when the pid still names the process recorded.
 */
export async function endRecordedGroup(pid: number, startTime: string, graceMs = 1000): Promise<EndOutcome> {
  const now = processStartTime(pid);
  if (now === undefined) return 'gone';
  if (now !== startTime) return 'not-the-same-process';
  const signal = (sig: NodeJS.Signals): boolean => {
    try {
      process.kill(-pid, sig);
      return true;
    } catch {
      try {
        process.kill(pid, sig);
        return true;
      } catch {
        return false;
      }
    }
  };
  if (!signal('SIGTERM')) return 'gone';
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    if (processStartTime(pid) !== startTime) return 'ended';
  }
  signal('SIGKILL');
  return 'ended';
}

/**
 * Where a process runs, as far as signalling it goes: the same boot of the same kernel (boot id)
 * and the same pid namespace (its inode). Another replica can end a recorded agent only when both
 * match its own; the host name is for people reading the warning when they do not.
 */
export interface ProcessHost {
  bootId: string;
  pidNs: string;
  name: string;
}

let thisHost: ProcessHost | undefined | null = null;

/** This process's host identity (undefined off Linux or when /proc does not say). Read once. */
export function processHost(): ProcessHost | undefined {
  if (thisHost !== null) return thisHost;
  thisHost = undefined;
  if (process.platform !== 'linux') return thisHost;
  try {
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    // "pid:[4026531836]": the namespace's inode names it.
    const pidNs = readlinkSync('/proc/self/ns/pid');
    if (bootId && pidNs) thisHost = { bootId, pidNs, name: hostname() };
  } catch {
    // no identity: nothing recorded elsewhere is ever ended from here
  }
  return thisHost;
}

/** Whether a process recorded with `host` can be signalled from here (same boot, same pid namespace). */
export function onThisHost(host: Pick<ProcessHost, 'bootId' | 'pidNs'> | undefined): boolean {
  const here = processHost();
  return !!host && !!here && host.bootId === here.bootId && host.pidNs === here.pidNs;
}
