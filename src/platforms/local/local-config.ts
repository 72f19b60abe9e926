/**
 * The `local:` section of turnbridge.yaml (enabled, max_text_chars, max_thinking_chars,
 * min_edit_interval_ms, edits_per_minute, posts_per_minute, user_id, user_name): the local page's
 * own limits, so splitting and pacing can be seen working. Read and checked with every other
 * setting, in config/schema.ts.
 */
export type { LocalConfig } from '../../config/types.js';
export { LOCAL_DEFAULTS, parseLocalConfig } from '../../config/platform-configs.js';
