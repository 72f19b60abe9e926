/** Bridge commands: the whole message (after the bot mention), trimmed, any case. */
export type BridgeCommand = 'reset' | 'stop';

const COMMANDS: Record<string, BridgeCommand> = {
  new: 'reset',
  reset: 'reset',
  '/new': 'reset',
  '/reset': 'reset',
  stop: 'stop',
  '/stop': 'stop',
};

export function parseCommand(text: string, attachmentCount = 0): BridgeCommand | undefined {
  if (attachmentCount > 0) return undefined;
  return COMMANDS[text.trim().toLowerCase()];
}
