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
 * `/bin/sh -c <script> turnbridge-box <chain…>`: start every relay, wait until each listens, then
 * exec the chain. The wait reads the box's own /proc/net/tcp (only the relays are in this network
 * namespace, so it is a line or two) with the shell's builtins, no process per look; it overlaps
 * nothing, but socat is listening a few milliseconds after its start. A relay that dies first
 * ends the turn with exit 125 and says so.
 */
export function relayArgv(socat: string, forwards: ReadonlyArray<{ host: string; port: number }>): string[] {
  const listens = [['127.0.0.1', BOX_PROXY_PORT] as const, ...forwards.map((f) => [forwardListenAddress(f.host), f.port] as const)];
  const lines = [
    `${socat} TCP-LISTEN:${BOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr,backlog=512 UNIX-CONNECT:${BOX_PROXY_SOCKET} >/dev/null & p=$!`,
    ...forwards.map((f) => `${socat} TCP-LISTEN:${f.port},bind=${forwardListenAddress(f.host)},fork,reuseaddr PROXY:127.0.0.1:${f.host}:${f.port},proxyport=${BOX_PROXY_PORT} >/dev/null &`),
    'ready() { n=0; for a; do while read -r _ l _ st _; do if [ "$l" = "$a" ] && [ "$st" = 0A ]; then n=$((n+1)); break; fi; done < /proc/net/tcp; done; [ "$n" -eq $# ]; }',
    `until ready ${listens.map(([a, port]) => procTcp(a, port)).join(' ')}; do kill -0 $p 2>/dev/null || { echo "turnbridge: the sandbox's network relay (socat) did not start" >&2; exit 125; }; done`,
    'exec "$@"',
  ];
  return ['/bin/sh', '-c', lines.join('\n'), 'turnbridge-box'];
}

let socat: string | null | undefined;

/** socat on the bridge's PATH (looked up once), or null: a box with egress needs it. */
export function findSocat(): string | null {
  if (socat === undefined) socat = findCommand('socat', process.env.PATH, '/') ?? null;
  return socat;
}
