import { describeFieldError, TurnbridgeError } from '../../errors.js';

/**
 * The `local:` section of turnbridge.yaml (snake_case keys: enabled, max_text_chars, max_thinking_chars,
 * min_edit_interval_ms, edits_per_minute, posts_per_minute, user_id, user_name): the local page's own
 * limits, so splitting and pacing can be seen working.
 */
export interface LocalConfig {
  /** Start the local page even when Slack/Discord credentials are present. */
  enabled: boolean;
  /** Longest answer text of one message before the reply continues in a new one (default 3000). */
  maxTextChars: number;
  /** Longest thinking line shown (default 600). */
  maxThinkingChars: number;
  /** Target gap between edits of one live message (default 250 ms). */
  minEditIntervalMs: number;
  /** Edit budget per page (conversation), per minute (default 240). */
  editsPerMinute: number;
  /** Post budget per page, per minute (default 60). */
  postsPerMinute: number;
  /** The fixed local user (author of every turn typed in the page). */
  userId: string;
  userName: string;
}

export const LOCAL_DEFAULTS: LocalConfig = {
  enabled: false,
  maxTextChars: 3000,
  maxThinkingChars: 600,
  minEditIntervalMs: 250,
  editsPerMinute: 240,
  postsPerMinute: 60,
  userId: 'local-user',
  userName: 'you',
};

const NUMBER_FIELDS = ['maxTextChars', 'maxThinkingChars', 'minEditIntervalMs', 'editsPerMinute', 'postsPerMinute'] as const;
const STRING_FIELDS = ['userId', 'userName'] as const;

/** turnbridge.yaml spells keys in snake_case, like the rest of the file. */
function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Validate the raw `local:` section (config.platforms.local). */
export function parseLocalConfig(raw: Record<string, unknown> | undefined, file?: string): LocalConfig {
  const out: LocalConfig = { ...LOCAL_DEFAULTS };
  if (!raw) return out;
  const known = ['enabled', ...NUMBER_FIELDS.map(snake), ...STRING_FIELDS.map(snake)];
  for (const key of Object.keys(raw)) {
    if (!known.includes(key)) {
      throw invalid(file, `local.${key}`, raw[key], `one of ${known.join(', ')}`, 'Remove the key or fix its spelling.');
    }
  }
  if (raw.enabled !== undefined) {
    if (typeof raw.enabled !== 'boolean') throw invalid(file, 'local.enabled', raw.enabled, 'true or false');
    out.enabled = raw.enabled;
  }
  for (const key of NUMBER_FIELDS) {
    const name = snake(key);
    const v = raw[name];
    if (v === undefined) continue;
    const min = key === 'maxTextChars' ? 100 : key === 'minEditIntervalMs' ? 0 : 1;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw invalid(file, `local.${name}`, v, `an integer >= ${min}`);
    out[key] = v;
  }
  for (const key of STRING_FIELDS) {
    const name = snake(key);
    const v = raw[name];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.trim() === '') throw invalid(file, `local.${name}`, v, 'a non-empty string');
    out[key] = v;
  }
  return out;
}

function invalid(file: string | undefined, field: string, found: unknown, expected: string, hint?: string): TurnbridgeError {
  return new TurnbridgeError('TB_CONFIG_INVALID', describeFieldError(file, field, found, expected, hint), { file, field, found, expected, hint });
}
