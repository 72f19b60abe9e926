/** Discord on discord.js 14: DMs, @mentions (answered in threads or inline), live replies, buttons. */
export { createDiscordPlatform, type DiscordPlatformOptions } from './platform.js';
export { createLiveLimitFilter, type LiveLimitFilter } from './rate-limit-filter.js';
export { parseDiscordConfig, replyModeFor, type DiscordConfig, type ReplyMode } from './config.js';
export { createDiscordSurface, toSurfaceError, type DiscordSurface, type DiscordSurfaceOptions } from './surface.js';
export { renderMessage, DISCORD_CAPABILITIES, DISCORD_MAX_CONTENT } from './render.js';
export { renderPrompt, renderModal } from './prompt-render.js';
export { CustomIds, encodeMessageRef, decodeMessageRef, targetChannel } from './ids.js';
export { readableText } from './mentions.js';
