/**
 * The Host header check, always on (DNS rebinding: a web page whose own host name now resolves
 * to this bridge sends that name as Host). Served: loopback names, IP literals (a rebinding page
 * cannot make a browser send an IP as Host for its own origin), the bind address when it is a
 * name, and TURNBRIDGE_ALLOWED_HOSTS (exact names or `*.example.com`) for deployments behind a
 * proxy.
 */
import { isIP } from 'node:net';
import { isLoopbackHost } from '../loopback.js';

/** The hostname of a Host header ("127.0.0.1:3000" -> "127.0.0.1", "[::1]:3000" -> "::1"). */
export function hostnameOf(header: string | undefined): string {
  if (!header) return '';
  const h = header.trim().toLowerCase();
  const v6 = /^\[([^\]]*)\]/.exec(h);
  if (v6) return v6[1]!;
  return h.replace(/:\d*$/, '');
}

/** Whether a bind address (HOST: a name, an IP, `[::1]`) is loopback only (0.0.0.0 and `::` are every interface). */
export function isLoopbackBind(host: string): boolean {
  return isLoopbackHost(host);
}

/** A predicate over Host headers; an absent header (not a browser) passes. */
export function createHostCheck(opts: { bindHost: string; allowedHosts?: readonly string[] }): (header: string | undefined) => boolean {
  const bind = opts.bindHost.trim().toLowerCase();
  const names = new Set<string>(opts.allowedHosts ?? []);
  if (bind && isIP(bind) === 0) names.add(bind);
  return (header) => {
    if (header === undefined) return true;
    const host = hostnameOf(header);
    if (!host) return false;
    if (isLoopbackHost(host) || isIP(host) !== 0) return true;
    if (names.has(host)) return true;
    for (const n of names) if (n.startsWith('*.') && host.endsWith(n.slice(1))) return true;
    return false;
  };
}
