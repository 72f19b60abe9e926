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

/** Where the egress proxy's socket appears inside the box, and the in-box port its relay listens on. */
export const BOX_PROXY_SOCKET = '/run/turnbridge/proxy.sock';
export const BOX_PROXY_PORT = 3128;

/** The address of the relay, as the agent's HTTP_PROXY and friends name it. */
export const BOX_PROXY_URL = `http://127.0.0.1:${BOX_PROXY_PORT}`;

/** /proc/net/tcp's spelling of an IPv4 address and port (`0100007F:0C38`). */
function procTcp(addr: string, port: number): string {
  const ip = addr.split('.').map(Number).reverse().map((n) => n.toString(16).padStart(2, '0')).join('');
  return `${ip}:${port.toString(16).padStart(4, '0')}`.toUpperCase();
}

/**
 * The relay in two parts, so that socat's start (a few milliseconds: its libraries) overlaps the
 * seccomp stage's instead of coming before it:
 *   - `start`, the box's first command: a shell that starts every relay in the background and
 *     execs the rest of the chain at once;
 *   - `gate`, the chain's last step before the agent (under the filter, in the agent's PID
 *     namespace): a shell that execs the agent once every relay listens, as the box's own
 *     /proc/net/tcp shows it (only the relays are in this network namespace: a line or two, read
 *     with the shell's builtins). Without it an agent that connects at once (a script's curl) finds
 *     nothing there in one start of three as a plain user. After 2 s (/proc/uptime) it execs the
 *     agent anyway and says on stderr that the relay is not there.
 */
export function relayArgv(socat: string, forwards: ReadonlyArray<{ host: string; port: number }>): { start: string[]; gate: string[] } {
  const listens = [['127.0.0.1', BOX_PROXY_PORT] as const, ...forwards.map((f) => [forwardListenAddress(f.host), f.port] as const)];
  const start = [
    `${socat} TCP-LISTEN:${BOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr,backlog=512 UNIX-CONNECT:${BOX_PROXY_SOCKET} >/dev/null &`,
    ...forwards.map((f) => `${socat} TCP-LISTEN:${f.port},bind=${forwardListenAddress(f.host)},fork,reuseaddr PROXY:127.0.0.1:${f.host}:${f.port},proxyport=${BOX_PROXY_PORT} >/dev/null &`),
    'exec "$@"',
  ];
  const gate = [
    'ready() { n=0; for a; do while read -r _ l _ st _; do if [ "$l" = "$a" ] && [ "$st" = 0A ]; then n=$((n+1)); break; fi; done < /proc/net/tcp; done; [ "$n" -eq $# ]; }',
    // Centiseconds of /proc/uptime, with a leading 1 so the shell never reads them as octal.
    'read -r t0 _ < /proc/uptime; t0=1${t0%.*}${t0#*.}',
    `until ready ${listens.map(([a, port]) => procTcp(a, port)).join(' ')}; do read -r t _ < /proc/uptime; t=1\${t%.*}\${t#*.}; [ $((t - t0)) -lt 200 ] || { echo "turnbridge: the sandbox's network relay (socat) is not listening" >&2; break; }; done`,
    'exec "$@"',
  ];
  return { start: ['/bin/sh', '-c', start.join('\n'), 'turnbridge-box'], gate: ['/bin/sh', '-c', gate.join('\n'), 'turnbridge-gate'] };
}

let socat: string | null | undefined;

/** socat on the bridge's PATH (looked up once), or null: a box with egress needs it. */
export function findSocat(): string | null {
  if (socat === undefined) socat = findCommand('socat', process.env.PATH, '/') ?? null;
  return socat;
}
