import type { Conversation } from '../chat.js';

/**
 * One unambiguous string per conversation: each part is percent-encoded, so ':' only ever
 * separates parts ("slack:T1:C1:1700.1", "discord::D1:" for a DM without a guild or thread).
 */
export function conversationKey(platform: string, c: Conversation): string {
  return [platform, c.space, c.channel, c.thread].map((p) => encodeURIComponent(p)).join(':');
}
