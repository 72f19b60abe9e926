/**
 * The agent box: the bubblewrap namespaces, limits and mounts every boxed turn gets (isolation.ts,
 * shared with the start-up probe so a host that refuses one is found at start), and the turn's
 * only way out, a filtering HTTP proxy on a unix socket for the profile's `sandbox.allow_hosts`
 * (egress.ts, @anthropic-ai/sandbox-runtime's proxy loaded on demand).
 */
export { BASE_MOUNTS, ISOLATION_FLAGS } from './isolation.js';
export { loadEgressProxy, startEgress, type Egress } from './egress.js';
