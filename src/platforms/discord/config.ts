/**
 * Discord settings: DISCORD_TOKEN / DISCORD_API_URL from the environment and the `discord:` section
 * of turnbridge.yaml, validated once at start-up. Mistakes throw TB_CONFIG_INVALID naming the field.
 */
import type { BridgeConfig, RouteConfig } from '../../config/types.js';
import { TurnbridgeError, describeFieldError } from '../../errors.js';
import type { ReadUnmentioned } from './message-content.js';

export type ReplyMode = 'thread' | 'inline';

export interface DiscordConfig {
  token: string;
  /** REST base without the version (discord.js appends /v10); undefined = discord.com. */
  apiUrl?: string;
  /**
   * Answer un-mentioned follow-ups in the bot's threads (needs the privileged Message Content
   * intent). 'auto' (default): ask for the intent when the application has it granted.
   */
  readUnmentioned: ReadUnmentioned;
  /** Ignore messages from other bots and webhooks (the bot's own messages are always ignored). */
  ignoreBots: boolean;
  /** Reactions on the user's message for turn state. */
  reactions: boolean;
  /** Default reply mode for server channels; a route may override it with `options.reply`. */
  reply: ReplyMode;
  /** Minutes of inactivity before a thread the bot started is archived (60, 1440, 4320, 10080). */
  threadAutoArchiveMinutes: 60 | 1440 | 4320 | 10080;
  /** Re-send the typing indicator this often while no text is shown (Discord shows it ~10 s). */
  typingIntervalMs: number;
  /** Attachment limits (same defaults as Slack). */
  maxAttachmentBytes?: number;
  maxAttachments?: number;
  /** Keep per-turn download directories after the turn. */
  keepAttachments: boolean;
  /** Parent of per-turn download directories (default the OS temp dir). */
  attachmentsDir?: string;
  /**
   * Gateway shards this replica runs, of `count` in all (several replicas: each its own shards,
   * so no event arrives twice). Absent: one shard, [0] of 1. DMs always arrive on shard 0.
   */
  shards?: { ids: number[]; count: number };
  routes: RouteConfig[];
}

/** Keys of the `discord:` section (snake_case; camelCase is accepted too). */
const KNOWN_KEYS = ['enabled', 'read_unmentioned', 'ignore_bots', 'allow_bots', 'reactions', 'reply', 'thread_auto_archive_minutes',
  'typing_interval_ms', 'max_attachment_bytes', 'max_attachments', 'keep_attachments', 'attachments_dir', 'shards', 'shard_count'];

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
const ARCHIVE = [60, 1440, 4320, 10080] as const;

function invalid(file: string | undefined, field: string, found: unknown, expected: string, hint?: string): TurnbridgeError {
  return new TurnbridgeError('TB_CONFIG_INVALID', describeFieldError(file, field, found, expected, hint), { file, field, found, expected, hint });
}

function bool(section: Record<string, unknown>, key: string, fallback: boolean, file?: string): boolean {
  const v = section[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw invalid(file, `discord.${key}`, v, 'true or false');
  return v;
}

function boolOr(section: Record<string, unknown>, key: string, file: string | undefined, expected: string, hint: string): boolean {
  const v = section[key];
  if (typeof v !== 'boolean') throw invalid(file, `discord.${key}`, v, expected, hint);
  return v;
}

function positiveInt(section: Record<string, unknown>, key: string, file?: string): number | undefined {
  const v = section[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) throw invalid(file, `discord.${key}`, v, 'a positive whole number');
  return v;
}

function replyMode(v: unknown, field: string, file?: string): ReplyMode {
  if (v === 'thread' || v === 'inline') return v;
  throw invalid(file, field, v, '"thread" or "inline"', 'thread: answer in a thread started from the mention; inline: answer in the channel');
}

/** Normalise DISCORD_API_URL: no trailing slash, no /v10 (discord.js adds the version itself). */
export function normaliseApiUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(undefined, 'DISCORD_API_URL', raw, 'an http(s) URL such as https://discord.com/api',
      'leave it unset for discord.com; set it only for a proxy or a test server');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(undefined, 'DISCORD_API_URL', raw, 'an http:// or https:// URL');
  }
  return url.toString().replace(/\/+$/, '').replace(/\/v\d+$/, '');
}

/**
 * `shards` + `shard_count` (turnbridge.yaml) or DISCORD_SHARDS + DISCORD_SHARD_COUNT: which shards
 * this replica runs. Both or neither (discord.js alone would turn `shards: [1]` into shard [1, 1]).
 */
function parseShards(section: Record<string, unknown>, env: NodeJS.ProcessEnv, file?: string): DiscordConfig['shards'] {
  const fromEnv = env.DISCORD_SHARDS !== undefined || env.DISCORD_SHARD_COUNT !== undefined;
  const idsField = fromEnv ? 'DISCORD_SHARDS' : 'discord.shards';
  const countField = fromEnv ? 'DISCORD_SHARD_COUNT' : 'discord.shard_count';
  const rawIds: unknown = fromEnv ? env.DISCORD_SHARDS?.split(',').map((s) => (s.trim() === '' ? NaN : Number(s))) : section.shards;
  const rawCount: unknown = fromEnv ? (env.DISCORD_SHARD_COUNT === undefined ? undefined : Number(env.DISCORD_SHARD_COUNT)) : section.shard_count;
  if (rawIds === undefined && rawCount === undefined) return undefined;
  const hint = 'e.g. shards 0,1 of shard_count 4 on one replica and 2,3 on the other; every shard must run on exactly one replica';
  if (typeof rawCount !== 'number' || !Number.isInteger(rawCount) || rawCount < 1) {
    throw invalid(fromEnv ? undefined : file, countField, fromEnv ? env.DISCORD_SHARD_COUNT : rawCount, 'the total number of shards, a whole number >= 1', hint);
  }
  const ids = rawIds === undefined ? Array.from({ length: rawCount }, (_, i) => i) : rawIds;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((n) => Number.isInteger(n) && n >= 0 && n < rawCount) || new Set(ids).size !== ids.length) {
    throw invalid(fromEnv ? undefined : file, idsField, fromEnv ? env.DISCORD_SHARDS : rawIds, `distinct shard ids from 0 to ${rawCount - 1}`, hint);
  }
  return { ids: [...ids].sort((a, b) => a - b), count: rawCount };
}

export function parseDiscordConfig(config: BridgeConfig, env: NodeJS.ProcessEnv): DiscordConfig {
  const file = config.file;
  const token = (env.DISCORD_TOKEN ?? '').trim().replace(/^Bot\s+/i, '');
  if (!token) {
    throw new TurnbridgeError('TB_CONFIG_INVALID',
      'DISCORD_TOKEN is not set. Copy the bot token from the Discord Developer Portal (your application > Bot > Reset Token) into DISCORD_TOKEN.',
      { field: 'DISCORD_TOKEN', found: undefined, expected: 'the bot token', hint: 'see docs/discord.md' });
  }
  if (/\s/.test(token)) {
    throw invalid(undefined, 'DISCORD_TOKEN', '[redacted]', 'one token without spaces', 'copy the token again from Bot > Reset Token');
  }
  const apiUrl = env.DISCORD_API_URL ? normaliseApiUrl(env.DISCORD_API_URL) : undefined;

  const raw = config.platforms?.discord ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(file, 'discord', raw, 'a mapping');
  const section: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const key = snake(k);
    if (!KNOWN_KEYS.includes(key)) throw invalid(file, `discord.${k}`, v, `one of ${KNOWN_KEYS.join(', ')}`, 'remove the unknown key or fix its spelling');
    section[key] = v;
  }
  const archive = section.thread_auto_archive_minutes ?? 1440;
  if (!ARCHIVE.includes(archive as (typeof ARCHIVE)[number])) {
    throw invalid(file, 'discord.thread_auto_archive_minutes', archive, 'one of 60, 1440, 4320, 10080');
  }
  const dir = section.attachments_dir;
  if (dir !== undefined && (typeof dir !== 'string' || !dir)) throw invalid(file, 'discord.attachments_dir', dir, 'a directory path');
  const allowBots = section.allow_bots === undefined ? undefined : bool(section, 'allow_bots', false, file);
  const shards = parseShards(section, env, file);
  const routes = config.routes ?? [];
  routes.forEach((r, i) => {
    if (r.platform !== undefined && r.platform !== 'discord') return;
    const reply = r.options?.reply;
    if (reply !== undefined) replyMode(reply, `routes[${i}].options.reply`, file);
  });

  return {
    token,
    apiUrl,
    readUnmentioned: section.read_unmentioned === 'auto' ? 'auto' : section.read_unmentioned === undefined ? 'auto'
      : boolOr(section, 'read_unmentioned', file, 'auto, true or false', 'auto asks for Message Content when the portal grants it'),
    ignoreBots: allowBots === undefined ? bool(section, 'ignore_bots', true, file) : !allowBots,
    reactions: bool(section, 'reactions', true, file),
    reply: section.reply === undefined ? 'thread' : replyMode(section.reply, 'discord.reply', file),
    threadAutoArchiveMinutes: archive as DiscordConfig['threadAutoArchiveMinutes'],
    typingIntervalMs: positiveInt(section, 'typing_interval_ms', file) ?? 8000,
    maxAttachmentBytes: positiveInt(section, 'max_attachment_bytes', file),
    maxAttachments: positiveInt(section, 'max_attachments', file),
    keepAttachments: bool(section, 'keep_attachments', false, file),
    attachmentsDir: dir as string | undefined,
    ...(shards ? { shards } : {}),
    routes,
  };
}

/** The reply mode for a server channel: the first route that matches (platform, space, channel) wins. */
export function replyModeFor(cfg: DiscordConfig, guildId: string, channelId: string): ReplyMode {
  for (const r of cfg.routes) {
    if (r.platform !== undefined && r.platform !== 'discord') continue;
    if (r.space !== undefined && r.space !== guildId) continue;
    if (r.channel !== undefined && r.channel !== channelId) continue;
    const reply = r.options?.reply;
    return reply === 'inline' || reply === 'thread' ? reply : cfg.reply;
  }
  return cfg.reply;
}
