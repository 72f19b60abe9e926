export type { Profile, LaunchContext, LaunchSpec } from './types.js';
export { loadProfile, parseProfile } from './load-profile.js';
export { parseProfileText, KNOWN_EXECUTORS } from './parse-profile.js';
export { resolveLaunch, INFRA_ENV } from './launch.js';
