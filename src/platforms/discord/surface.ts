/**
 * The Discord Surface: posts and edits through discord.js's REST client (so its per-bucket queues
 * and rate-limit headers apply), renders prompts as buttons, typing and reactions.
 */
import type { Conversation, MessageContent, MessageRef, PermissionPromptView, SourceMessageRef } from '../../chat.js';
import { DiscordAPIError, RateLimitError, type REST } from 'discord.js';
import { RateLimitedError, TurnbridgeError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { FileLimits, FilePost, RateBudget, ReactionState, Surface } from '../../delivery/surface.js';
import { CustomIds, decodeMessageRef, encodeMessageRef, targetChannel } from './ids.js';
import { DISCORD_CAPABILITIES, renderMessage } from './render.js';
import { renderPrompt } from './prompt-render.js';
import { createReactionPacer } from './reaction-pacer.js';
import { TypingLoop } from './typing.js';

export interface DiscordSurfaceOptions {
  rest: REST;
  logger: Logger;
  ids: CustomIds;
  reactions: boolean;
  typingIntervalMs: number;
  /**
   * The per-file upload limit in a channel (its server's boost level; platform.ts reads it from
   * the guild cache). Default: Discord's documented default, 10 MiB.
   */
  uploadLimit?: (channelId: string) => number;
  /** The bot's own user id once logged in (findFiles counts only its messages). */
  selfId?: () => string | undefined;
}

/** "The default limit is 10 MiB for all users" (reference.mdx, Uploading Files). */
export const DEFAULT_UPLOAD_LIMIT = 10 * 1048576;
/** Per-file limits by Server Boost level (Discord's Server Boosting FAQ: levels 2 and 3 raise it to 50 and 100 MiB). */
export const BOOST_UPLOAD_LIMITS: Readonly<Record<number, number>> = { 0: DEFAULT_UPLOAD_LIMIT, 1: DEFAULT_UPLOAD_LIMIT, 2: 50 * 1048576, 3: 100 * 1048576 };
/** 10 files a message; "the maximum request size when sending a message is 25 MiB" (Create Message), less room for the form itself. */
const DISCORD_FILE_LIMITS: Omit<FileLimits, 'maxFileBytes'> = { maxFiles: 10, maxMessageBytes: 25 * 1048576 - 64 * 1024 };

/** Pages of a channel read when recovery looks for a message by its marker (100 messages a page). */
const FIND_PAGES = 10;

/** What recovery reads of a fetched message. */
interface DiscordMessage {
  id: string;
  author?: { id?: string };
  components?: Array<{ components?: Array<{ custom_id?: unknown }> }>;
  attachments?: Array<{ filename?: string }>;
}

const REACTION: Record<ReactionState, string> = { working: '👀', success: '✅', failure: '❌' };

/** Hints for the Discord error codes a misconfigured bot meets first. */
const HINTS: Record<number, string> = {
  50001: 'the bot cannot see this channel: give it View Channel (and Read Message History)',
  50013: 'the bot lacks a permission here: Send Messages, Send Messages in Threads, Create Public Threads, Add Reactions (see docs/discord.md)',
  10003: 'the channel no longer exists',
  10008: 'the message was deleted',
  50035: 'Discord rejected the message body (too long or invalid)',
  50007: 'the person does not accept direct messages (from members of this server)',
  40005: 'the file is over this server\'s upload limit (10 MiB unless the server is boosted)',
};

/** Maps discord.js failures to turnbridge errors: 429s to RateLimitedError, the rest to TB_PLATFORM_ERROR. */
export function toSurfaceError(e: unknown, what: string): Error {
  if (e instanceof RateLimitError) return new RateLimitedError(`Discord rate limit on ${e.route}`, Math.max(1, e.retryAfter), e);
  if (e instanceof DiscordAPIError) {
    if (e.status === 429) return new RateLimitedError(`Discord answered 429 to ${what}`, 1000, e);
    const hint = typeof e.code === 'number' ? HINTS[e.code] : undefined;
    // 4xx (bad body, no permission, unknown channel or message): no retry can fix it
    const permanent = e.status >= 400 && e.status < 500 && e.status !== 408;
    return new TurnbridgeError('TB_PLATFORM_ERROR', `Discord ${what} failed: ${e.message}${hint ? ` (${hint})` : ''}`, { cause: e, hint, ...(permanent ? { permanent } : {}) });
  }
  return new TurnbridgeError('TB_PLATFORM_ERROR', `Discord ${what} failed: ${(e as Error)?.message ?? String(e)}`, { cause: e });
}

export interface DiscordSurface extends Surface {
  /** Stop every typing loop (platform stop). */
  close(): void;
}

export function createDiscordSurface(opts: DiscordSurfaceOptions): DiscordSurface {
  const { rest, logger, ids } = opts;
  const typing = new TypingLoop({
    intervalMs: opts.typingIntervalMs,
    send: async (channelId) => { await rest.post(`/channels/${channelId}/typing`); },
    logger,
  });

  async function call<T>(what: string, fn: () => Promise<unknown>): Promise<T> {
    try {
      return (await fn()) as T;
    } catch (e) {
      throw toSurfaceError(e, what);
    }
  }

  function noteVisible(channelId: string, content: MessageContent): void {
    if (content.text.trim() || !content.stopActionId) typing.stop(channelId);
  }

  async function postBody(conversation: Conversation, body: object, what: string): Promise<MessageRef> {
    const channelId = targetChannel(conversation);
    const msg = await call<{ id: string }>(what, () => rest.post(`/channels/${channelId}/messages`, { body }));
    return { id: encodeMessageRef(channelId, msg.id), conversation };
  }

  async function editBody(ref: MessageRef, body: object, what: string): Promise<void> {
    const { channelId, messageId } = decodeMessageRef(ref.id);
    await call(what, () => rest.patch(`/channels/${channelId}/messages/${messageId}`, { body }));
  }

  const surface: DiscordSurface = {
    platform: 'discord',
    capabilities: DISCORD_CAPABILITIES,

    budgets(op: 'post' | 'edit', conversation: Conversation): RateBudget[] {
      // Discord publishes no per-channel number; ~5 per 5 s per channel is the long-observed value.
      // Every live reply in a channel shares the channel's edit budget, so each slows down as more run.
      const channel = targetChannel(conversation);
      return [{ key: `discord:${channel}:${op}`, perMinute: 60, burst: 5 }];
    },

    async post(conversation, content) {
      const channelId = targetChannel(conversation);
      noteVisible(channelId, content);
      const ref = await postBody(conversation, renderMessage(content, ids), 'posting a message');
      // A live reply's placeholder (no text yet, Stop shown): keep "typing…" under it until text shows.
      if (!content.text.trim() && content.stopActionId) typing.start(channelId);
      return ref;
    },

    async edit(ref, content) {
      noteVisible(decodeMessageRef(ref.id).channelId, content);
      await editBody(ref, renderMessage(content, ids), 'editing a message');
    },

    // Prompts go through delivery like every message: its limiters pace them and its attempt
    // policy (src/delivery/pacing/attempt.ts) retries a 429 or a transient failure.
    postPrompt(conversation, view: PermissionPromptView) {
      return postBody(conversation, renderPrompt(view, ids), 'posting a permission prompt');
    },

    updatePrompt(ref, view) {
      return editBody(ref, renderPrompt(view, ids), 'updating a permission prompt');
    },

    // The channel's newest messages (newest first, paged back): the bot's message whose buttons
    // carry the marker (a prompt's custom_ids hold its id).
    async findPosted(conversation, marker) {
      const channelId = targetChannel(conversation);
      const hits: MessageRef[] = [];
      let before: string | undefined;
      for (let page = 0; page < FIND_PAGES; page++) {
        const query = new URLSearchParams({ limit: '100', ...(before ? { before } : {}) });
        const msgs = await call<DiscordMessage[]>('reading the channel', () => rest.get(`/channels/${channelId}/messages`, { query }));
        for (const m of msgs) {
          const carries = (m.components ?? []).some((row) => (row.components ?? []).some((c) => typeof c.custom_id === 'string' && ids.decode(c.custom_id)?.id === marker));
          if (carries) hits.push({ id: encodeMessageRef(channelId, m.id), conversation });
        }
        if (msgs.length < 100) return hits.reverse();
        before = msgs.at(-1)!.id;
      }
      logger.warn({ channel: channelId, pages: FIND_PAGES }, 'discord: read only the newest pages of a channel looking for messages being posted at a crash');
      return hits.reverse();
    },

    findBudgets: (conversation) => [{ key: `discord:${targetChannel(conversation)}:read`, perMinute: 60, burst: 5 }],

    // Files are attachments of one message (multipart: payload_json + files[n]); Discord shows
    // images inline. A message has no place for a marker out of sight, so findFiles looks for the
    // first message of the bot after the post's `after` carrying exactly its files.
    async postFiles(conversation, post: FilePost) {
      const channelId = targetChannel(conversation);
      await call('posting files', () => rest.post(`/channels/${channelId}/messages`, {
        body: {
          ...(post.caption ? { content: post.caption.slice(0, 2000) } : {}),
          attachments: post.files.map((f, i) => ({ id: i, filename: f.name })),
          allowed_mentions: { parse: [] },
        },
        files: post.files.map((f) => ({ name: f.name, data: f.data, contentType: f.mimeType })),
      }));
    },
    fileLimits: (conversation): FileLimits => ({ ...DISCORD_FILE_LIMITS, maxFileBytes: opts.uploadLimit?.(targetChannel(conversation)) ?? DEFAULT_UPLOAD_LIMIT }),
    fileBudgets(conversation) {
      return surface.budgets('post', conversation);
    },
    async findFiles(conversation, post) {
      const channelId = targetChannel(conversation);
      const after = post.after ? decodeMessageRef(post.after.id).messageId : undefined;
      const self = opts.selfId?.();
      const same = (m: DiscordMessage) => (!self || m.author?.id === self) && (m.attachments ?? []).map((a) => a.filename).join('/') === post.names.join('/');
      if (after) {
        // Oldest first after the anchor (`after` pages go forward): the first such post is it.
        let from = after;
        for (let page = 0; page < FIND_PAGES; page++) {
          const query = new URLSearchParams({ limit: '100', after: from });
          const msgs = await call<DiscordMessage[]>('reading the channel', () => rest.get(`/channels/${channelId}/messages`, { query }));
          if (msgs.some(same)) return true;
          if (msgs.length < 100) return false;
          from = msgs.reduce((a, m) => (BigInt(m.id) > BigInt(a) ? m.id : a), from);
        }
        return false;
      }
      const query = new URLSearchParams({ limit: '100' });
      const msgs = await call<DiscordMessage[]>('reading the channel', () => rest.get(`/channels/${channelId}/messages`, { query }));
      return msgs.some(same);
    },

    // Discord has no ephemeral answer to a plain message (only to interactions): a DM, which
    // needs the person to accept DMs from server members (a 50007 error otherwise).
    async tellPrivately(_source, user, text) {
      const dm = await call<{ id: string }>('opening a DM', () => rest.post('/users/@me/channels', { body: { recipient_id: user.id } }));
      await call('sending a DM', () => rest.post(`/channels/${dm.id}/messages`, { body: { content: text, allowed_mentions: { parse: [] } } }));
      return 'dm' as const;
    },

    async showTyping(conversation) {
      typing.start(targetChannel(conversation));
    },

    close() {
      typing.stopAll();
    },
  };

  if (opts.reactions) {
    const reactions = createReactionPacer();
    surface.react = async (source: SourceMessageRef, state: ReactionState) => {
      const { channelId, messageId } = decodeMessageRef(source.id);
      const base = `/channels/${channelId}/messages/${messageId}/reactions` as const;
      try {
        if (state !== 'working') {
          await reactions.run(channelId, () => rest.delete(`${base}/${encodeURIComponent(REACTION.working)}/@me`)).catch(() => {});
        }
        await reactions.run(channelId, () => rest.put(`${base}/${encodeURIComponent(REACTION[state])}/@me`));
      } catch (e) {
        logger.warn({ err: toSurfaceError(e, 'adding a reaction').message, state }, 'discord: reaction failed (not fatal)');
      }
    };
  }
  return surface;
}
