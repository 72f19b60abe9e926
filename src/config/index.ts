/**
 * Config: turnbridge.yaml and the environment, read and checked once at start-up (load-config.ts),
 * every error naming the file, the field and the fix. The types every layer reads the settings
 * through (types.ts), the defaults, the route table and what holds on a route (parse-routes.ts,
 * route-rules.ts), identities as written (identity-forms.ts), the security settings and the
 * secrets read from files. Nothing here starts anything.
 */
export { loadConfig, KNOWN_KEYS, type LoadConfigOptions } from './load-config.js';
export { DEFAULTS, defaultProfilePath, repoRoot } from './defaults.js';
export { choosePlatforms } from './choose-platforms.js';
