/**
 * Discord on discord.js 14: DMs and @mentions (answered in threads or inline) become
 * InboundMessages (platform.ts, inbound.ts, mentions.ts), button clicks and modals ActionEvents
 * (interactions.ts); the Discord Surface (surface.ts: markdown with subtext and components in
 * render.ts and prompt-render.ts, reactions paced by reaction-pacer.ts, REST 429s kept from live
 * edits by rate-limit-filter.ts); its config, permissions and doctor checks.
 */
export { createDiscordPlatform, type DiscordPlatformOptions } from './platform.js';
export { createLiveLimitFilter, type LiveLimitFilter } from './rate-limit-filter.js';
export { parseDiscordConfig, replyModeFor, type DiscordConfig, type ReplyMode } from './config.js';
export { createDiscordSurface, toSurfaceError, type DiscordSurface, type DiscordSurfaceOptions } from './surface.js';
export { renderMessage, DISCORD_CAPABILITIES, DISCORD_MAX_CONTENT } from './render.js';
export { renderPrompt, renderModal } from './prompt-render.js';
export { CustomIds, encodeMessageRef, decodeMessageRef, targetChannel } from './ids.js';
export { readableText } from './mentions.js';
