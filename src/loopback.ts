/**
 * Which addresses are this machine, in one place: the HTTP server's Host check and bind-address
 * questions (http/host-check.ts) and the agent box's egress filter (profile/allow-hosts.ts,
 * runner/sandbox/egress.ts) ask the same two questions of the same spellings.
 *
 * - loopback: 127.0.0.0/8, ::1 and 127.x mapped into IPv6 (`::ffff:127.0.0.1`, also written
 *   `::ffff:7f00:1`, which is how a URL prints it), in any IPv6 spelling; `localhost` and
 *   `*.localhost` (RFC 6761), with or without brackets and a trailing dot.
 * - unspecified: 0.0.0.0 and `::` (and `::ffff:0.0.0.0`). Bound to, they mean every interface,
 *   so a bind there is NOT loopback-only; connected to, they reach this machine, so a proxy must
 *   treat them as loopback.
 */
import { BlockList, isIP } from 'node:net';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
const unspecified = new BlockList();
unspecified.addAddress('0.0.0.0', 'ipv4');
unspecified.addAddress('::', 'ipv6');

/** `[::1]`, `LOCALHOST.` -> `::1`, `localhost`. */
function bare(host: string): string {
  return host.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** BlockList.check for an IP literal (IPv4-mapped IPv6 checked against the IPv4 rules), false for a name. */
function inList(list: BlockList, h: string): boolean {
  const v = isIP(h);
  return v !== 0 && list.check(h, v === 6 ? 'ipv6' : 'ipv4');
}

/** A loopback address or name: only this machine answers, and only to itself. */
export function isLoopbackHost(host: string): boolean {
  const h = bare(host);
  return h === 'localhost' || h.endsWith('.localhost') || inList(loopback, h);
}

/** 0.0.0.0 or `::` (any spelling): every interface when bound, this machine when connected to. */
export function isUnspecifiedHost(host: string): boolean {
  return inList(unspecified, bare(host));
}

/** A destination that is this machine: loopback or unspecified. */
export function reachesThisMachine(host: string): boolean {
  return isLoopbackHost(host) || isUnspecifiedHost(host);
}
