/**
 * messageCreate -> InboundMessage. Decides whether a message is for the bot (DM, @mention, a
 * follow-up in a thread the bot started), which conversation it belongs to (starting a thread
 * for a mention when the route answers in threads), and downloads its attachments.
 */
import type { Conversation, UserRef } from '../../chat.js';
import { MessageType, type Client, type Message } from 'discord.js';
import type { Logger } from '../../log.js';
import type { BridgeInbound, InboundMessage } from '../../bridge/types.js';
import { attachmentRef, type DownloadedAttachments, type RemoteFile } from '../index.js';
import { replyModeFor, type DiscordConfig } from './config.js';
import { INLINE_THREAD_PREFIX, encodeMessageRef } from './ids.js';
import { readableText, threadName } from './mentions.js';
import { toSurfaceError } from './surface.js';
import { ENABLE_MESSAGE_CONTENT } from './message-content.js';

export interface InboundOptions {
  client: Client;
  cfg: DiscordConfig;
  logger: Logger;
  /** The platform's downloader (directory, limits; no token: CDN URLs are signed). */
  download(files: RemoteFile[], dir?: string): Promise<DownloadedAttachments>;
  /** Whether the gateway connection carries the Message Content intent (decided at start). */
  messageContent(): boolean;
}

type Decision = { conversation: Conversation; notices: string[] } | { skip: string };

export function createMessageHandler(opts: InboundOptions, bridge: BridgeInbound): (msg: Message) => Promise<void> {
  const { client, cfg, logger } = opts;
  let warnedContent = false;

  function authorRef(msg: Message): UserRef {
    const member = msg.member;
    return {
      id: msg.author.id,
      name: member?.displayName ?? msg.author.globalName ?? msg.author.username,
      ...(member ? { roles: [...member.roles.cache.keys()].filter((r) => r !== msg.guildId) } : {}),
    };
  }

  async function decide(msg: Message, botId: string): Promise<Decision> {
    if (!msg.inGuild()) return { conversation: { space: '', channel: msg.channelId, thread: '' }, notices: [] };
    const guildId = msg.guildId;
    const mentioned = msg.mentions.users.has(botId);
    const channel = msg.channel;
    if (channel.isThread()) {
      const parent = channel.parentId ?? channel.id;
      const conversation = { space: guildId, channel: parent, thread: channel.id };
      if (mentioned) return { conversation, notices: [] };
      // The bot started it (ownerId) or the bridge answered there before (its state: restarts, replicas).
      const ours = channel.ownerId === botId || (await bridge.ownsThread('discord', conversation));
      if (!ours) return { skip: 'not mentioned in a thread the bot did not start' };
      if (!msg.content && msg.attachments.size === 0) {
        if (!opts.messageContent() && !warnedContent) {
          warnedContent = true;
          logger.info(`discord: a follow-up without a mention in a bot thread arrived without content (Message Content intent off); to answer those: ${ENABLE_MESSAGE_CONTENT} (docs/discord.md)`);
        }
        return { skip: 'empty content (Message Content intent off)' };
      }
      return { conversation, notices: [] };
    }
    if (!mentioned) return { skip: 'not mentioned' };
    // A stranger gets the bridge's refusal inline: no thread is started for them.
    const admitted = bridge.admits ? await bridge.admits({ platform: 'discord', conversation: { space: guildId, channel: msg.channelId, thread: '' }, user: authorRef(msg) }) : true;
    if (!admitted || replyModeFor(cfg, guildId, msg.channelId) === 'inline') {
      return { conversation: { space: guildId, channel: msg.channelId, thread: `${INLINE_THREAD_PREFIX}${msg.author.id}` }, notices: [] };
    }
    try {
      const thread = await msg.startThread({ name: threadName(readableText(msg.content, names(msg, botId))), autoArchiveDuration: cfg.threadAutoArchiveMinutes });
      return { conversation: { space: guildId, channel: msg.channelId, thread: thread.id }, notices: [] };
    } catch (e) {
      const err = toSurfaceError(e, 'starting a thread');
      logger.warn({ err: err.message, channelId: msg.channelId }, 'discord: could not start a thread; answering inline (give the bot Create Public Threads and Send Messages in Threads)');
      return {
        conversation: { space: guildId, channel: msg.channelId, thread: `${INLINE_THREAD_PREFIX}${msg.author.id}` },
        notices: ['Could not start a thread here (the bot needs Create Public Threads), so the answer is in the channel.'],
      };
    }
  }

  function names(msg: Message, botId: string) {
    return {
      botId,
      user: (id: string) => {
        const member = msg.guild?.members.cache.get(id);
        const user = msg.mentions.users.get(id) ?? client.users.cache.get(id);
        return member?.displayName ?? user?.globalName ?? user?.username;
      },
      role: (id: string) => msg.guild?.roles.cache.get(id)?.name ?? msg.mentions.roles.get(id)?.name,
      channel: (id: string) => {
        const ch = client.channels.cache.get(id);
        return ch && 'name' in ch && typeof ch.name === 'string' ? ch.name : undefined;
      },
    };
  }

  return async (msg: Message): Promise<void> => {
    const botId = client.user?.id;
    if (!botId || msg.author.id === botId) return;
    if ((msg.author.bot || msg.webhookId) && cfg.ignoreBots) return;
    if (msg.type !== MessageType.Default && msg.type !== MessageType.Reply) return;
    const decision = await decide(msg, botId);
    if ('skip' in decision) {
      logger.trace({ messageId: msg.id, reason: decision.skip }, 'discord: message ignored');
      return;
    }
    const { conversation } = decision;
    // CDN URLs are signed: no token goes with them. Fetched by the bridge after its access and queue checks.
    const files: RemoteFile[] = [...msg.attachments.values()].map((a) => ({
      id: a.id, url: a.url, filename: a.name, mimeType: a.contentType ?? undefined, size: a.size,
    }));
    const inbound: InboundMessage = {
      platform: 'discord',
      conversation,
      user: authorRef(msg),
      text: readableText(msg.content, names(msg, botId)),
      attachments: [],
      eventId: `discord:${msg.id}`,
      receivedAt: Date.now(),
      source: { id: encodeMessageRef(msg.channelId, msg.id), conversation },
      direct: !msg.inGuild(),
      notices: decision.notices,
      ...(files.length ? {
        download: { count: files.length, fetch: (dir) => opts.download(files, dir) },
        // Kept with a queued turn: fetched again by Surface.fetchAttachments after a restart.
        attachmentRefs: files.map(attachmentRef),
      } : {}),
    };
    logger.debug({ messageId: msg.id, conversation, text: inbound.text }, 'discord: message for the bot');
    try {
      await bridge.handleMessage(inbound);
    } catch (e) {
      logger.error({ err: (e as Error)?.message, messageId: msg.id }, 'discord: the bridge refused a message');
    }
  };
}
