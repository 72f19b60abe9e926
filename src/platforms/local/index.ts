export { createLocalPlatform } from './local-platform.js';
export type { LocalPlatform, LocalPlatformOptions } from './local-platform.js';
export { parseLocalConfig, LOCAL_DEFAULTS } from './local-config.js';
export type { LocalConfig } from './local-config.js';
