/**
 * Message text as the agent should read it: the bot's own mention removed, other mentions made
 * readable (<@id> -> @name, <@&role> -> @rolename, <#id> -> #channel).
 */

export interface MentionNames {
  botId: string;
  user(id: string): string | undefined;
  role(id: string): string | undefined;
  channel(id: string): string | undefined;
}

export function readableText(content: string, names: MentionNames): string {
  return content
    .replace(new RegExp(`[ \\t]*<@!?${names.botId}>[ \\t]*`, 'g'), ' ')
    .replace(/<@!?(\d+)>/g, (_, id: string) => `@${names.user(id) ?? id}`)
    .replace(/<@&(\d+)>/g, (_, id: string) => `@${names.role(id) ?? id}`)
    .replace(/<#(\d+)>/g, (_, id: string) => `#${names.channel(id) ?? id}`)
    .trim();
}

/** A short thread title from the user's words (1-100 characters). */
export function threadName(text: string): string {
  const flat = text.replace(/\s+/g, ' ').replace(/[`*_~|>]/g, '').trim();
  if (!flat) return 'turnbridge';
  return flat.length <= 80 ? flat : `${flat.slice(0, 79)}…`;
}
