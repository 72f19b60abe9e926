/**
 * The way out of a sandboxed turn: the box has its own network namespace (no route anywhere, not
 * even the host's loopback), and its only exit is a unix socket bound into it, on which this
 * filtering HTTP proxy listens outside the box. The proxy is @anthropic-ai/sandbox-runtime's
 * (CONNECT tunnels and plain-HTTP forwarding, the runtime behind Claude Code's own sandbox); what
 * it admits is the profile's `sandbox.allow_hosts` (allow-hosts.ts). One proxy per turn, on a
 * socket in a 0700 directory of its own, closed when the turn ends: a list is bound to its turn
 * by the socket, not by anything the agent presents.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { LookupFunction, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostAllowed, type HostRule } from '../../profile/allow-hosts.js';
import { reachesThisMachine } from '../../loopback.js';

type ProxyModule = typeof import('@anthropic-ai/sandbox-runtime/dist/sandbox/http-proxy.js');
let proxyModule: Promise<ProxyModule> | undefined;

/** Load the proxy library once (about 150 ms the first time); the bridge does it at start-up. */
export function loadEgressProxy(): Promise<ProxyModule> {
  return proxyModule ??= import('@anthropic-ai/sandbox-runtime/dist/sandbox/http-proxy.js');
}

export interface Egress {
  /** The proxy's socket, bound into the box. */
  readonly socketPath: string;
  /** Refused destinations so far ("host:port"), for the turn's log. */
  readonly refused: readonly string[];
  close(): Promise<void>;
}

/**
 * Names resolve outside the box; a name that is not itself loopback but resolves to this machine
 * (a DNS entry pointing at 127.0.0.1) is refused, so `*` or `*.example.com` cannot reach Redis.
 */
function guardedLookup(): LookupFunction {
  return ((hostname: string, options: LookupOneOptions | LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      if (!reachesThisMachine(hostname) && addresses.some((a) => reachesThisMachine(a.address))) {
        return callback(Object.assign(new Error(`${hostname} resolves to this machine: refused`), { code: 'ENOTFOUND' }), '', 0);
      }
      if ((options as LookupAllOptions).all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as LookupFunction;
}

/** Start this turn's proxy. `owner`: the run_as user, who must be able to connect to the socket. */
export async function startEgress(rules: readonly HostRule[], owner?: { uid: number; gid: number }): Promise<Egress> {
  const { createHttpProxyServer } = await loadEgressProxy();
  const dir = mkdtempSync(join(tmpdir(), 'tb-egress-'));
  const socketPath = join(dir, 'proxy.sock');
  const refused: string[] = [];
  const lookup = guardedLookup();
  const server: Server = createHttpProxyServer({
    filter: (port, host) => {
      const ok = hostAllowed(rules, host, port);
      if (!ok && refused.length < 100) refused.push(`${host}:${port}`);
      return ok;
    },
    lookupFor: () => lookup,
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(socketPath, 0o600);
    if (owner) {
      chownSync(dir, owner.uid, owner.gid);
      chownSync(socketPath, owner.uid, owner.gid);
    }
  } catch (e) {
    server.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  let closed: Promise<void> | undefined;
  return {
    socketPath,
    refused,
    close: () => closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    }).finally(() => rmSync(dir, { recursive: true, force: true })),
  };
}
