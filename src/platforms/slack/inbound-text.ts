/**
 * Slack message text -> what the agent reads: the bot mention stripped, user / channel
 * mentions and links made readable, entities unescaped.
 */

export interface InboundTextOptions {
  botUserId?: string;
  /** Display name for a user id; undefined when unknown (the id is shown then). */
  resolveUser?: (id: string) => Promise<string | undefined>;
}

const TOKEN = /<([^<>]*)>/g;

export function mentionsUser(text: string, userId: string | undefined): boolean {
  if (!userId) return false;
  return text.includes(`<@${userId}>`) || text.includes(`<@${userId}|`);
}

export async function normalizeInboundText(text: string, opts: InboundTextOptions = {}): Promise<string> {
  if (opts.botUserId) {
    const bot = opts.botUserId.replace(/[^A-Za-z0-9]/g, '');
    text = text.replace(new RegExp(`<@${bot}(\\|[^>]*)?>[ \\t]?`, 'g'), '');
  }
  const ids = new Set<string>();
  for (const m of text.matchAll(TOKEN)) {
    const inner = m[1]!;
    if (inner.startsWith('@')) {
      const id = inner.slice(1).split('|')[0]!;
      if (id !== opts.botUserId && !inner.includes('|')) ids.add(id);
    }
  }
  const names = new Map<string, string>();
  if (opts.resolveUser) {
    await Promise.all([...ids].map(async (id) => {
      const name = await opts.resolveUser!(id).catch(() => undefined);
      if (name) names.set(id, name);
    }));
  }
  const replaced = text.replace(TOKEN, (_all, inner: string) => {
    const bar = inner.indexOf('|');
    const target = bar >= 0 ? inner.slice(0, bar) : inner;
    const label = bar >= 0 ? inner.slice(bar + 1) : '';
    if (target.startsWith('@')) {
      const id = target.slice(1);
      if (id === opts.botUserId) return '';
      return `@${names.get(id) ?? (label || id)}`;
    }
    if (target.startsWith('#')) return `#${label || target.slice(1)}`;
    if (target.startsWith('!')) {
      const special = target.slice(1);
      if (special.startsWith('subteam^')) return label || `@${special.slice(8)}`;
      if (special === 'here' || special === 'channel' || special === 'everyone') return `@${special}`;
      return label || special;
    }
    if (target.startsWith('mailto:')) return label || target.slice(7);
    if (label && label !== target) return `${label} (${target})`;
    return target;
  });
  return replaced
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
    .trim();
}
