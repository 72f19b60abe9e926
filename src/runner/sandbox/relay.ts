/**
 * The box's side of egress (egress.ts is the proxy's): the box has no network but its own
 * loopback, so a relay inside it listens on 127.0.0.1:3128 (HTTP_PROXY) and carries each
 * connection to the proxy's unix socket, bound into the box at BOX_PROXY_SOCKET; a profile's
 * loopback entries (`127.0.0.1:8080`) get a listener of their own on that port, tunnelled through
 * the proxy to the host's. The relays are socat, started by a shell that then execs the agent's
 * chain (the seccomp stage, the agent): they run before the filter, which would refuse them the
 * unix socket, and outside the agent's PID namespace.
 */
import { forwardListenAddress } from '../../profile/allow-hosts.js';
import { findCommand } from '../find-command.js';
import { processEnv } from '../../config/bridge-env.js';

/** Where the egress proxy's socket appears inside the box, and the in-box port its relay listens on. */
export const BOX_PROXY_SOCKET = '/run/turnbridge/proxy.sock';
const BOX_PROXY_PORT = 3128;

/** The address of the relay, as the agent's HTTP_PROXY and friends name it. */
export const BOX_PROXY_URL = `http://127.0.0.1:${BOX_PROXY_PORT}`;

/**
 * The relay in two parts, so that socat's start (a few milliseconds: its libraries) overlaps the
 * seccomp stage's instead of coming before it, and nothing spins while it starts:
 *   - `start`, the box's first command: a shell that keeps the turn's stdin as fd 3 and runs
 *     `(socat … &) | <the chain>`: every relay in the background with its log (`-d -d`) on the
 *     pipe, SIGPIPE ignored by socat alone (once nobody reads the pipe its log lines are lost, not
 *     it), and the rest of the chain reading that pipe; the shell ends with the chain;
 *   - `gate`, the chain's last step before the agent (under the filter, in the agent's PID
 *     namespace): a shell that reads the relays' log until each says "listening on", then execs
 *     the agent with the turn's stdin back. A relay that fails ends its log: the gate says so on
 *     stderr and starts the agent anyway (it then finds no proxy).
 * Without a wait an agent that connects at once (a script's curl) found nothing there in one start
 * of three as a plain user; reading /proc/net/tcp in a loop instead cost as much CPU as socat's
 * start, which a loaded host cannot spare.
 */
export function relayArgv(socat: string, forwards: ReadonlyArray<{ host: string; port: number }>): { start: string[]; gate: string[] } {
  const relays = [
    `${socat} -d -d TCP-LISTEN:${BOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr,backlog=512 UNIX-CONNECT:${BOX_PROXY_SOCKET}`,
    ...forwards.map((f) => `${socat} -d -d TCP-LISTEN:${f.port},bind=${forwardListenAddress(f.host)},fork,reuseaddr PROXY:127.0.0.1:${f.host}:${f.port},proxyport=${BOX_PROXY_PORT}`),
  ];
  const start = [
    'exec 3<&0',
    `(trap '' PIPE; ${relays.map((r) => `${r} 2>&1 >/dev/null </dev/null &`).join(' ')}) | "$@"`,
  ];
  const gate = [
    `n=0; while read -r l; do case $l in *'listening on'*) n=$((n+1)); [ "$n" -ge ${relays.length} ] && break;; esac; done`,
    `[ "$n" -ge ${relays.length} ] || echo "turnbridge: the sandbox's network relay (socat) did not start: $l" >&2`,
    'exec "$@" <&3 3<&-',
  ];
  return { start: ['/bin/sh', '-c', start.join('\n'), 'turnbridge-box'], gate: ['/bin/sh', '-c', gate.join('\n'), 'turnbridge-gate'] };
}

let socat: string | null | undefined;

/** socat on the bridge's PATH (looked up once), or null: a box with egress needs it. */
export function findSocat(): string | null {
  if (socat === undefined) socat = findCommand('socat', processEnv().PATH, '/') ?? null;
  return socat;
}
