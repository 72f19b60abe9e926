/**
 * SlackConfig: the Slack environment variables and the `slack:` section of turnbridge.yaml,
 * validated once. Every mistake throws TB_CONFIG_INVALID naming the variable or field and
 * what to do about it. Tokens are kept here and never logged.
 */
import { TurnbridgeError, describeFieldError } from '../../errors.js';
import { DEFAULT_MAX_ATTACHMENT_BYTES, DEFAULT_MAX_ATTACHMENTS } from '../index.js';

export type SlackMode = 'socket' | 'http';

/**
 * How replies stream. auto: native streaming (chat.startStream / appendStream / stopStream) where
 * Slack allows it, falling back to post + chat.update for good (per workspace) when Slack says
 * streaming is not available; native: always try native streaming, failures are logged as
 * errors every time and never remembered; edit: post once, then chat.update.
 */
export type SlackStreaming = 'auto' | 'native' | 'edit';

export const SLACK_STREAMING_MODES: readonly SlackStreaming[] = ['auto', 'native', 'edit'];

export interface SlackConfig {
  mode: SlackMode;
  botToken: string;
  appToken?: string;
  signingSecret?: string;
  /** Web API base, always ending in '/'. Socket Mode's apps.connections.open goes here too. */
  apiUrl: string;
  /** SLACK_STREAMING (or slack.streaming); default auto. */
  streaming: SlackStreaming;
  /**
   * HTTP mode: a port of its own for Bolt's receiver (POST /slack/events). Unset: the route is
   * mounted on the bridge's one HTTP server when the platform is given it, else port 3001.
   */
  httpHost: string;
  httpPort?: number;
  /** eyes / white_check_mark / x on the user's message. */
  reactions: boolean;
  /** assistant.threads.setStatus while nothing is visible yet (failures ignored). */
  typing: boolean;
  /** Accept messages from other bots (never from this one). */
  allowBots: boolean;
  maxAttachmentBytes: number;
  maxAttachments: number;
  keepAttachments: boolean;
  attachmentsDir?: string;
  /** Threads remembered as "the bot has a conversation here" (oldest forgotten first). */
  maxActiveThreads: number;
  /** Web API retries for 5xx / network errors (429s are never retried by the client). */
  apiRetries: number;
  /** Web API request timeout. */
  apiTimeoutMs: number;
  /** Background reconnect back-off: first delay and cap. */
  reconnectBaseMs: number;
  reconnectMaxMs: number;
  /** Socket Mode ping timeout; also Bolt's reconnect delay unit. */
  clientPingTimeoutMs: number;
  /**
   * Multiplies every rate budget and divides the edit interval. 1 in production; tests run
   * against a fake Slack whose budgets are scaled by the same factor (ratios stay honest).
   */
  rateScale: number;
}

const SECTION_KEYS = [
  'reactions', 'typing', 'allow_bots', 'max_attachment_bytes', 'max_attachments', 'keep_attachments',
  'attachments_dir', 'max_active_threads', 'api_retries', 'api_timeout_ms', 'reconnect_base_ms',
  'reconnect_max_ms', 'client_ping_timeout_ms', 'rate_scale', 'http_port', 'http_host', 'api_url', 'streaming',
] as const;

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function invalid(file: string | undefined, field: string, found: unknown, expected: string, hint?: string): TurnbridgeError {
  return new TurnbridgeError('TB_CONFIG_INVALID', describeFieldError(file, field, found, expected, hint), { file, field, found, expected, hint });
}

function envError(name: string, found: unknown, expected: string, hint: string): TurnbridgeError {
  return invalid(undefined, name, found, expected, hint);
}

/** Show only a token's kind, never its value. */
function tokenShape(value: string): string {
  return value.length > 5 ? `${value.slice(0, 5)}… (${value.length} chars)` : value;
}

export function parseSlackConfig(env: NodeJS.ProcessEnv, section: Record<string, unknown> = {}, file?: string, defaultHost = '127.0.0.1'): SlackConfig {
  const raw: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(section ?? {})) {
    const key = snake(k);
    if (!(SECTION_KEYS as readonly string[]).includes(key)) {
      throw invalid(file, `slack.${k}`, v, `one of ${SECTION_KEYS.join(', ')}`, 'remove the unknown key or fix its spelling');
    }
    raw[key] = v;
  }
  const bool = (key: string, dflt: boolean): boolean => {
    const v = raw[key];
    if (v === undefined) return dflt;
    if (typeof v !== 'boolean') throw invalid(file, `slack.${key}`, v, 'true or false');
    return v;
  };
  const int = (key: string, dflt: number, min: number): number => {
    const v = raw[key];
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min) throw invalid(file, `slack.${key}`, v, `a number >= ${min}`);
    return v;
  };

  const botToken = (env.SLACK_BOT_TOKEN ?? '').trim();
  if (!botToken) {
    throw envError('SLACK_BOT_TOKEN', undefined, 'a bot token starting with xoxb-',
      'copy it from your Slack app: OAuth & Permissions -> Bot User OAuth Token (see docs/slack.md)');
  }
  if (!botToken.startsWith('xoxb-')) {
    throw envError('SLACK_BOT_TOKEN', tokenShape(botToken), 'a bot token starting with xoxb-',
      'use the Bot User OAuth Token, not a user (xoxp-) or app-level (xapp-) token');
  }
  const appToken = (env.SLACK_APP_TOKEN ?? '').trim() || undefined;
  if (appToken && !appToken.startsWith('xapp-')) {
    throw envError('SLACK_APP_TOKEN', tokenShape(appToken), 'an app-level token starting with xapp-',
      'create one under Basic Information -> App-Level Tokens with the connections:write scope');
  }
  const signingSecret = (env.SLACK_SIGNING_SECRET ?? '').trim() || undefined;
  if (!appToken && !signingSecret) {
    throw envError('SLACK_APP_TOKEN', undefined, 'an app-level token (xapp-) for Socket Mode, or SLACK_SIGNING_SECRET for HTTP mode',
      'Socket Mode needs no public URL: create an App-Level Token with connections:write (see docs/slack.md)');
  }
  const mode: SlackMode = appToken ? 'socket' : 'http';

  let apiUrl = (env.SLACK_API_URL ?? (raw.api_url as string | undefined) ?? 'https://slack.com/api/').trim();
  try {
    const u = new URL(apiUrl);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('protocol');
  } catch {
    throw envError('SLACK_API_URL', apiUrl, 'an http(s) URL such as https://slack.com/api/', 'leave it unset for slack.com');
  }
  if (!apiUrl.endsWith('/')) apiUrl += '/';

  const fromEnv = (env.SLACK_STREAMING ?? '').trim().toLowerCase();
  const rawStreaming = fromEnv || (raw.streaming === undefined ? 'auto' : String(raw.streaming).trim().toLowerCase());
  if (!(SLACK_STREAMING_MODES as readonly string[]).includes(rawStreaming)) {
    const hint = 'auto streams natively where Slack allows it and falls back to post + chat.update; edit always posts and edits';
    if (fromEnv) throw envError('SLACK_STREAMING', env.SLACK_STREAMING, 'auto, native or edit (or unset for auto)', hint);
    throw invalid(file, 'slack.streaming', raw.streaming, 'auto, native or edit', hint);
  }
  const streaming = rawStreaming as SlackStreaming;

  let httpPort = raw.http_port === undefined ? undefined : int('http_port', 0, 0);
  if (env.SLACK_HTTP_PORT !== undefined && env.SLACK_HTTP_PORT !== '') {
    const p = Number(env.SLACK_HTTP_PORT);
    if (!Number.isInteger(p) || p < 0 || p > 65535) throw envError('SLACK_HTTP_PORT', env.SLACK_HTTP_PORT, 'a port number 0-65535', 'HTTP mode listens there for POST /slack/events');
    httpPort = p;
  }
  const httpHost = (env.SLACK_HTTP_HOST ?? (raw.http_host as string | undefined) ?? defaultHost).trim();

  const reconnectBaseMs = int('reconnect_base_ms', 2_000, 1);
  const cfg: SlackConfig = {
    mode, botToken, appToken, signingSecret, apiUrl, streaming, httpHost, httpPort,
    reactions: bool('reactions', true),
    typing: bool('typing', true),
    allowBots: bool('allow_bots', false),
    maxAttachmentBytes: int('max_attachment_bytes', DEFAULT_MAX_ATTACHMENT_BYTES, 1),
    maxAttachments: int('max_attachments', DEFAULT_MAX_ATTACHMENTS, 0),
    keepAttachments: bool('keep_attachments', false),
    attachmentsDir: raw.attachments_dir === undefined ? undefined : String(raw.attachments_dir),
    maxActiveThreads: int('max_active_threads', 5_000, 1),
    apiRetries: int('api_retries', 2, 0),
    apiTimeoutMs: int('api_timeout_ms', 30_000, 1),
    reconnectBaseMs,
    reconnectMaxMs: Math.max(reconnectBaseMs, int('reconnect_max_ms', 60_000, 1)),
    clientPingTimeoutMs: int('client_ping_timeout_ms', 5_000, 100),
    rateScale: int('rate_scale', 1, 0.001),
  };
  return cfg;
}
