/**
 * Whether to ask Discord for the privileged Message Content intent. `read_unmentioned: auto`
 * (the default) reads the application's flags (GET /applications/@me) before connecting and asks
 * for the intent exactly when it is granted, so the gateway never closes with 4014 and follow-ups
 * in the bot's threads work as soon as the portal switch is on. true/false override that.
 */
import { Routes, type REST } from 'discord.js';
import type { Logger } from '../../log.js';

export type ReadUnmentioned = 'auto' | boolean;

/** GATEWAY_MESSAGE_CONTENT (approved, 1<<18) or GATEWAY_MESSAGE_CONTENT_LIMITED (portal toggle, 1<<19). */
const MESSAGE_CONTENT_FLAGS = (1 << 18) | (1 << 19);

/** How to switch the intent on, said wherever it is off. */
export const ENABLE_MESSAGE_CONTENT =
  'Developer Portal > your application > Bot > Privileged Gateway Intents > turn on "Message Content Intent", then restart turnbridge';

export function messageContentGranted(applicationFlags: number): boolean {
  return (applicationFlags & MESSAGE_CONTENT_FLAGS) !== 0;
}

/** The decision, with why: what the start-up log line and the inbound handler go by. */
export type MessageContentMode =
  | { kind: 'on'; why: 'granted' | 'configured' }
  | { kind: 'off'; why: 'not_granted' | 'configured' | 'unknown'; detail?: string };

/** The application's flags, or an error message (bad token, network). */
async function fetchApplicationFlags(rest: REST): Promise<{ flags: number } | { error: string }> {
  try {
    const app = (await rest.get(Routes.currentApplication())) as { flags?: number };
    return { flags: typeof app.flags === 'number' ? app.flags : 0 };
  } catch (e) {
    return { error: (e as Error)?.message ?? String(e) };
  }
}

export async function decideMessageContent(setting: ReadUnmentioned, rest: REST): Promise<MessageContentMode> {
  if (setting === true) return { kind: 'on', why: 'configured' };
  if (setting === false) return { kind: 'off', why: 'configured' };
  const app = await fetchApplicationFlags(rest);
  if ('error' in app) return { kind: 'off', why: 'unknown', detail: app.error };
  return messageContentGranted(app.flags) ? { kind: 'on', why: 'granted' } : { kind: 'off', why: 'not_granted' };
}

/** One start-up line saying which mode the bridge is in and, when off by absence, how to turn it on. */
export function logMessageContentMode(mode: MessageContentMode, logger: Logger): void {
  switch (mode.why) {
    case 'granted':
      logger.info({ messageContent: true }, "discord: Message Content intent granted; follow-ups in the bot's threads are answered without a mention");
      break;
    case 'configured':
      logger.info({ messageContent: mode.kind === 'on' }, `discord: Message Content intent ${mode.kind === 'on' ? 'requested' : 'not requested'} (discord.read_unmentioned: ${mode.kind === 'on'})`);
      break;
    case 'not_granted':
      logger.warn({ messageContent: false },
        `discord: the Message Content intent is not enabled for this application, so follow-ups in the bot's threads need an @mention. To answer them without one: ${ENABLE_MESSAGE_CONTENT} (docs/discord.md)`);
      break;
    case 'unknown':
      logger.warn({ messageContent: false, err: mode.kind === 'off' ? mode.detail : undefined },
        'discord: could not read the application flags; connecting without the Message Content intent (follow-ups in threads need an @mention)');
      break;
  }
}
