/**
 * Profiles: a profile YAML read and checked into a Profile (load-profile.ts), the hosts a boxed
 * agent may reach (allow-hosts.ts), and its launch: placeholders filled, `${VAR}` resolved, the
 * child's environment built (launch.ts); whether two profiles start the same agent (same-agent.ts). Knows nothing of processes.
 */
export type { Profile, LaunchContext, LaunchSpec } from './types.js';
export { KNOWN_EXECUTORS, loadProfile, parseProfile, parseProfileText } from './load-profile.js';
export { resolveLaunch, INFRA_ENV } from './launch.js';
export { parseHostRule, hostAllowed, loopbackForwards, type HostRule } from './allow-hosts.js';
export { sameAgent } from './same-agent.js';
