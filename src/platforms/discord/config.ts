/**
 * The Discord settings (DISCORD_* and the `discord:` section of turnbridge.yaml) are read and
 * checked with every other setting, in config/schema.ts; loadConfig hands the result to this
 * platform as `config.platforms.discord`. What they mean for one channel is here.
 */
import type { DiscordConfig, ReplyMode } from '../../config/types.js';

export type { DiscordConfig, ReplyMode } from '../../config/types.js';
export { normaliseApiUrl, parseDiscordConfig } from '../../config/platform-configs.js';

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
