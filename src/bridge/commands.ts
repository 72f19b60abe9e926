/** Bridge commands: the whole message (after the bot mention), trimmed, any case. */
export type BridgeCommand = { kind: 'reset' } | { kind: 'stop' } | { kind: 'allow'; identity: string };

const WORDS: Record<string, 'reset' | 'stop'> = {
  new: 'reset',
  reset: 'reset',
  '/new': 'reset',
  '/reset': 'reset',
  stop: 'stop',
  '/stop': 'stop',
};

export function parseCommand(text: string, attachmentCount = 0): BridgeCommand | undefined {
  if (attachmentCount > 0) return undefined;
  const t = text.trim();
  const word = WORDS[t.toLowerCase()];
  if (word) return { kind: word };
  // `allow slack:U0123` (admins only; checked by the caller).
  const m = /^\/?allow\s+(\S+)$/i.exec(t);
  if (m && /^(slack|discord|local):/i.test(m[1]!)) return { kind: 'allow', identity: m[1]! };
  return undefined;
}
