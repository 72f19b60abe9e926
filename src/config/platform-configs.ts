/**
 * The platforms' settings once their sections are read (schema.ts SLACK, DISCORD, LOCAL): what
 * the tokens say about each (Slack's mode), and the checks that need more than one field.
 * loadConfig calls these for every platform whose token is set; the parse* functions read one
 * platform alone (its doctor checks, tests).
 */
import { fail } from './field-checks.js';
import { DISCORD, LOCAL, SLACK, SLACK_STREAMING_MODES, discordReply } from './schema.js';
import { type Read, readSection } from './table.js';
import type { BridgeConfig, DiscordConfig, LocalConfig, RouteConfig, SlackConfig } from './types.js';

const ENVIRONMENT = { label: 'environment' };

/** The Slack settings, with the tokens required: SLACK_BOT_TOKEN and an app token (Socket Mode) or a signing secret (HTTP mode). */
export function slackConfig(v: Read<typeof SLACK>): SlackConfig {
  if (!v.botToken) {
    fail(ENVIRONMENT, 'SLACK_BOT_TOKEN', undefined, 'a bot token starting with xoxb-', 'copy it from your Slack app: OAuth & Permissions -> Bot User OAuth Token (see docs/slack.md)');
  }
  if (!v.appToken && !v.signingSecret) {
    fail(ENVIRONMENT, 'SLACK_APP_TOKEN', undefined, 'an app-level token (xapp-) for Socket Mode, or SLACK_SIGNING_SECRET for HTTP mode',
      'Socket Mode needs no public URL: create an App-Level Token with connections:write (see docs/slack.md)');
  }
  return { ...v, botToken: v.botToken, mode: v.appToken ? 'socket' : 'http', reconnectMaxMs: Math.max(v.reconnectBaseMs, v.reconnectMaxMs) };
}

/** The Discord settings, with DISCORD_TOKEN required; a route's `options.reply` is checked here (it is Discord's). */
export function discordConfig(v: Read<typeof DISCORD>, routes: readonly RouteConfig[], file?: string): DiscordConfig {
  const { token, allowBots, enabled: _enabled, shards, shardCount, ...rest } = v;
  if (!token) {
    fail(ENVIRONMENT, 'DISCORD_TOKEN', undefined, 'the bot token', 'copy the bot token from the Discord Developer Portal (your application > Bot > Reset Token) into DISCORD_TOKEN; see docs/discord.md');
  }
  routes.forEach((r, i) => {
    if (r.platform !== undefined && r.platform !== 'discord') return;
    const reply = r.options?.reply;
    if (reply !== undefined) discordReply({ src: { file }, field: `routes[${i}].options.reply`, base: '' }, reply);
  });
  return {
    ...rest,
    token,
    ignoreBots: allowBots === undefined ? rest.ignoreBots : !allowBots,
    // A count alone: every shard runs here.
    ...(shardCount !== undefined ? { shards: { ids: [...(shards ?? Array.from({ length: shardCount }, (_, i) => i))].sort((a, b) => a - b), count: shardCount } } : {}),
    routes: [...routes],
  };
}

/** A platform's settings as its factory takes them: loadConfig sets them when the platform's token is set. */
export function platformSettings<T>(settings: T | undefined, platform: string, variable: string): T {
  if (settings === undefined) fail(ENVIRONMENT, variable, undefined, `the ${platform} token (the ${platform} platform was started without it)`, `set ${variable}; see docs/${platform.toLowerCase()}.md`);
  return settings;
}

/**
 * Every Slack route's `options.streaming` (its conversations' mode over slack.streaming) is a mode;
 * a TB_CONFIG_INVALID naming the field otherwise.
 */
export function checkSlackRouteOptions(config: Pick<BridgeConfig, 'routes' | 'dm' | 'file'>): void {
  const routes = [...config.routes.map((r, i) => [r, `routes[${i}]`] as const), ...(config.dm ? [[config.dm, 'dm'] as const] : [])];
  for (const [r, at] of routes) {
    const v = r.options?.streaming;
    if (v === undefined || (r.platform !== undefined && r.platform !== 'slack')) continue;
    if (typeof v !== 'string' || !(SLACK_STREAMING_MODES as readonly string[]).includes(v)) {
      fail({ file: config.file }, `${at}.options.streaming`, v, 'auto, native or edit', 'edit keeps this route\'s Slack channels on post + chat.update; auto or native streams where Slack allows it');
    }
  }
}

/** The Slack section and variables alone, the platform asked for (tokens required). */
export function parseSlackConfig(env: NodeJS.ProcessEnv, section: unknown = {}, file?: string, host = '127.0.0.1', cwd = '.'): SlackConfig {
  return slackConfig(readSection(SLACK, section, 'slack', { file, env, cwd }, { host }));
}

/** The Discord section and variables alone, the platform asked for (DISCORD_TOKEN required). */
export function parseDiscordConfig(env: NodeJS.ProcessEnv, section: unknown = {}, opts: { file?: string; routes?: readonly RouteConfig[]; cwd?: string } = {}): DiscordConfig {
  return discordConfig(readSection(DISCORD, section, 'discord', { file: opts.file, env, cwd: opts.cwd ?? '.' }), opts.routes ?? [], opts.file);
}

/** DISCORD_API_URL as the Discord client takes it: no trailing slash, no /v10 (discord.js adds the version). */
export function normaliseApiUrl(raw: string): string {
  return DISCORD.fields.apiUrl.read({ src: ENVIRONMENT, field: 'DISCORD_API_URL', base: '.', fromEnv: true }, raw);
}

/** The local page's section alone (no environment). */
export function parseLocalConfig(section: unknown, file?: string): LocalConfig {
  return readSection(LOCAL, section, 'local', { file, env: {}, cwd: '.' });
}

/** The local page's settings when turnbridge.yaml has no `local:`. */
export const LOCAL_DEFAULTS: LocalConfig = parseLocalConfig(undefined);
