/** Bridge commands: the whole message (after the bot mention), trimmed, any case. */
export type BridgeCommand = 'reset' | 'stop' | 'rules' | 'rules-clear';

const COMMANDS: Record<string, BridgeCommand> = {
  new: 'reset',
  reset: 'reset',
  '/new': 'reset',
  '/reset': 'reset',
  stop: 'stop',
  '/stop': 'stop',
  rules: 'rules',
  '/rules': 'rules',
  'rules clear': 'rules-clear',
  '/rules clear': 'rules-clear',
};

export function parseCommand(text: string, attachmentCount = 0): BridgeCommand | undefined {
  if (attachmentCount > 0) return undefined;
  return COMMANDS[text.trim().toLowerCase().replace(/\s+/g, ' ')];
}

/** `allow slack:U0123` (the whole message; admins only, checked by the caller): the identity written, else undefined. */
export function parseAllowCommand(text: string, attachmentCount = 0): string | undefined {
  if (attachmentCount > 0) return undefined;
  const m = /^\/?allow\s+(\S+)$/i.exec(text.trim());
  return m && /^(slack|discord|local):/i.test(m[1]!) ? m[1]! : undefined;
}
