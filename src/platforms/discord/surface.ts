/**
 * The Discord Surface: posts and edits through discord.js's REST client (so its per-bucket queues
 * and rate-limit headers apply), renders prompts as buttons, typing and reactions.
 */
import { DiscordAPIError, RateLimitError, type REST } from 'discord.js';
import { RateLimitedError, TurnbridgeError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type {
  Conversation, MessageContent, MessageRef, PermissionPromptView, RateBudget, ReactionState, SourceMessageRef, Surface,
} from '../../delivery/surface.js';
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
}

/** Pages of a channel read when recovery looks for a message by its marker (100 messages a page). */
const FIND_PAGES = 10;

/** What recovery reads of a fetched message. */
interface DiscordMessage {
  id: string;
  components?: Array<{ components?: Array<{ custom_id?: unknown }> }>;
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
