/**
 * The local page: a chat in the browser for a bridge with no Slack or Discord (or beside them).
 * local-platform.ts is the Platform, local-routes.ts its HTTP routes (the page, a message POST,
 * server-sent events), local-hub.ts fans the Surface's posts and edits out to the open pages,
 * local-surface.ts is the Surface, local-files.ts the files of the conversation; page/ is what
 * the browser loads.
 */
export { createLocalPlatform } from './local-platform.js';
export type { LocalPlatform, LocalPlatformOptions } from './local-platform.js';
export { parseLocalConfig, LOCAL_DEFAULTS } from './local-config.js';
export type { LocalConfig } from './local-config.js';
