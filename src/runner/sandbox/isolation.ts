/**
 * The namespaces and limits of every agent box, in one list: the turn's launch (launch-policy.ts)
 * and the start-up probe (sandbox-probe.ts) use the same flags, so a host that refuses one of
 * them (no user namespaces, a container's seccomp profile) is found at start-up, not per turn.
 *
 * - a user namespace with every capability dropped (`--cap-drop ALL`): root inside can neither
 *   unmount what hides the bridge's files nor remount `/` writable, and cannot make a nested
 *   user namespace to win capabilities back (`--disable-userns`);
 * - its own PID namespace (the bridge's /proc/<pid> is not there; when the agent exits, bwrap's
 *   init goes and the kernel kills whatever is left, `setsid` children included), IPC, UTS and
 *   cgroup namespaces;
 * - its own network namespace: only its own loopback, so the host's loopback services (Redis,
 *   the bridge's port) and abstract unix sockets are out of reach; egress.ts is the way out;
 * - a new session (no TIOCSTI into the bridge's terminal) and death with the bridge.
 */
export const ISOLATION_FLAGS: readonly string[] = [
  '--unshare-user', '--disable-userns', '--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try',
  '--cap-drop', 'ALL', '--die-with-parent', '--new-session',
];

/** The base file system of every box: the host read-only, its own /dev, /proc and /tmp. */
export const BASE_MOUNTS: readonly string[] = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
