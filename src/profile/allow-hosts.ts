/**
 * Which destinations a sandboxed agent may reach through the egress proxy (a profile's
 * `sandbox.allow_hosts`): `host`, `host:port`, `*.domain` (subdomains, not the domain itself) and
 * `*` (every host off this machine). The host's own loopback is never matched by a pattern: only
 * an entry that names a loopback host exactly, with its port (`127.0.0.1:8080`), admits it, so
 * Redis, the bridge's port and other local services stay out of reach under `*`.
 */
import { isIP } from 'node:net';
import { reachesThisMachine } from '../loopback.js';

export interface HostRule {
  /** Lower-case host, `*.suffix`, or `*`. */
  host: string;
  /** Absent: any port. */
  port?: number;
}

/** `[::1]:8080`, `api.example.com`, `*.example.com:443`, `*` -> a rule, or null when malformed. */
export function parseHostRule(entry: string): HostRule | null {
  const s = entry.trim().toLowerCase();
  if (s === '*') return { host: '*' };
  let host = s;
  let port: string | undefined;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(s);
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2];
  } else if (isIP(s) !== 6 && s.includes(':')) {
    host = s.slice(0, s.lastIndexOf(':'));
    port = s.slice(s.lastIndexOf(':') + 1);
    if (!/^\d{1,5}$/.test(port)) return null;
  }
  if (host.includes('*') && !/^\*\.[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(host)) return null;
  if (!host.includes('*') && isIP(host) === 0 && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host)) return null;
  const n = port === undefined ? undefined : Number(port);
  if (n !== undefined && (n < 1 || n > 65535)) return null;
  return n === undefined ? { host } : { host, port: n };
}

/** May the agent open a connection to host:port? */
export function hostAllowed(rules: readonly HostRule[], host: string, port: number): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const local = reachesThisMachine(h);
  return rules.some((r) => {
    if (r.port !== undefined && r.port !== port) return false;
    if (local) return r.host === h && r.port !== undefined;
    if (r.host === '*') return true;
    if (r.host.startsWith('*.')) return h.endsWith(r.host.slice(1));
    return r.host === h;
  });
}

/** Loopback entries with a port: inside the box these ports are forwarded to the host's, through the proxy. */
export function loopbackForwards(rules: readonly HostRule[]): Array<{ host: string; port: number }> {
  return rules.filter((r): r is { host: string; port: number } => r.port !== undefined && reachesThisMachine(r.host) && isIP(r.host) !== 6);
}

/** The in-box address a forward listens on: the entry's IPv4 loopback address, 127.0.0.1 for localhost names. */
export function forwardListenAddress(host: string): string {
  return isIP(host) === 4 ? host : '127.0.0.1';
}
