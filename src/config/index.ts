export { loadConfig, KNOWN_KEYS, type LoadConfigOptions } from './load-config.js';
export { DEFAULTS, defaultProfilePath, repoRoot } from './defaults.js';
export { choosePlatforms } from './choose-platforms.js';
