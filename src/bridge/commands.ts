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
