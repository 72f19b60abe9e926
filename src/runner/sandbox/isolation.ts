/**
 * The namespaces, limits and base mounts of every agent box, in one list: the turn's launch
 * (box-args.ts) and the start-up probe (probe.ts) use the same flags, so a host that refuses one
 * of them (no user namespaces, a container's seccomp profile) is found at start-up, not per turn.
 *
 * - a user namespace with every capability dropped (`--cap-drop ALL`): root inside can neither
 *   unmount what hides the bridge's files nor remount `/` writable; no further user namespace to
 *   win capabilities back (`--disable-userns`, or the seccomp stage's filter: seccomp.ts);
 * - its own PID namespace (the bridge's /proc/<pid> is not there; when the agent exits, bwrap's
 *   init goes and the kernel kills whatever is left, `setsid` children included), IPC, UTS and
 *   cgroup namespaces;
 * - its own network namespace: only its own loopback, so the host's loopback services (Redis,
 *   the bridge's port) and abstract unix sockets are out of reach; egress.ts is the way out;
 * - a new session (no TIOCSTI into the bridge's terminal) and death with the bridge;
 * - the host read-only, its own /dev, /proc, /tmp and /run.
 */
import { stageFlags, type SeccompStage } from './seccomp.js';

const NAMESPACES = ['--unshare-user', '--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try'];
const LIMITS = ['--cap-drop', 'ALL', '--die-with-parent', '--new-session'];
const BASE_MOUNTS = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/run'];

/** The flags every box starts with; with a seccomp stage, what it needs instead of `--disable-userns`. */
export function boxBase(stage: SeccompStage | undefined): string[] {
  return stage
    ? [...NAMESPACES, ...LIMITS, ...BASE_MOUNTS, ...stageFlags(stage)]
    : [...NAMESPACES, '--disable-userns', ...LIMITS, ...BASE_MOUNTS];
}
