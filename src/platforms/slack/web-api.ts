/**
 * Slack's Web API as the platform calls it. Failures -> turnbridge errors: a 429 becomes
 * RateLimitedError{retryAfterMs} (the client is built with rejectRateLimitedCalls, so it never
 * sleeps on its own queue); the rest becomes TB_PLATFORM_ERROR carrying Slack's error string.
 * And the message ids the core carries for Slack messages (below).
 */
import { RateLimitedError, TurnbridgeError } from '../../errors.js';

interface SlackishError {
  code?: string;
  retryAfter?: number;
  data?: { error?: string };
  statusCode?: number;
  message?: string;
}

/**
 * Slack errors that no retry can fix (the call is wrong for this channel, message or app), so
 * delivery gives up at once and says so instead of backing off for seconds.
 */
const PERMANENT = new Set([
  'channel_not_found', 'not_in_channel', 'is_archived', 'msg_too_long', 'invalid_blocks', 'invalid_blocks_format',
  'no_text', 'too_many_attachments', 'restricted_action', 'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel', 'restricted_action_non_threadable_channel', 'cant_update_message',
  'edit_window_closed', 'message_not_found', 'thread_not_found', 'missing_scope', 'not_authed', 'invalid_auth',
  'account_inactive', 'token_revoked', 'token_expired', 'no_permission', 'ekm_access_denied', 'team_access_not_granted',
]);

/** Slack's `error` string for a platform error ("channel_not_found"), else undefined. */
export function slackErrorCode(e: unknown): string | undefined {
  const err = e as SlackishError | undefined;
  return err?.code === 'slack_webapi_platform_error' ? err.data?.error : undefined;
}

export function toSurfaceError(e: unknown, method: string): Error {
  const err = (e ?? {}) as SlackishError;
  if (err.code === 'slack_webapi_rate_limited_error') {
    const secs = typeof err.retryAfter === 'number' && Number.isFinite(err.retryAfter) ? err.retryAfter : 1;
    return new RateLimitedError(`Slack rate-limited ${method}; retry after ${secs} s`, Math.max(0, secs * 1000), e);
  }
  // a 429 without a usable Retry-After comes back as a plain Error from @slack/web-api
  if (!err.code && /Retry header did not contain a valid timeout/.test(err.message ?? '')) {
    return new RateLimitedError(`Slack rate-limited ${method} without a Retry-After`, 1000, e);
  }
  const platform = slackErrorCode(e);
  if (platform === 'ratelimited') return new RateLimitedError(`Slack rate-limited ${method}`, 1000, e);
  const detail = platform ?? (err.statusCode ? `HTTP ${err.statusCode}` : err.message ?? String(e));
  return new TurnbridgeError('TB_PLATFORM_ERROR', `Slack ${method} failed: ${detail}`, { cause: e, found: platform, ...(platform && PERMANENT.has(platform) ? { permanent: true } : {}) });
}

/** Run one Web API call, translating its failure. */
export async function callSlack<T>(method: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toSurfaceError(e, method);
  }
}

/*
 * Opaque ids the core carries for Slack messages: "<channel>:<ts>". The conversation travels
 * beside the id in MessageRef, so the team is not repeated here.
 */
export interface SlackMessageId {
  channel: string;
  ts: string;
}

export function encodeMessageId(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

export function decodeMessageId(id: string): SlackMessageId {
  const i = id.indexOf(':');
  if (i <= 0 || i === id.length - 1) throw new Error(`not a Slack message id: ${JSON.stringify(id)} (expected "<channel>:<ts>")`);
  return { channel: id.slice(0, i), ts: id.slice(i + 1) };
}
