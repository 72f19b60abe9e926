/**
 * The Slack Surface: what the core may ask of Slack, through one WebClient that never retries
 * a 429 itself (the delivery layer's limiter owns pacing; a 429 surfaces as RateLimitedError).
 */
import type { Conversation, MessageContent, MessageRef, PermissionPromptView, SourceMessageRef } from '../../chat.js';
import type { webApi } from '@slack/bolt';
import type { BridgeConfig, RouteConfig } from '../../config/types.js';
import type { Logger } from '../../log.js';
import type { ActivityAbout, ConversationActivity, FileLimits, FilePost, RateBudget, ReactionState, Surface, SurfaceCapabilities } from '../../delivery/surface.js';
import { ACTION_STOP, escapeMrkdwn, neutralizeMentions, renderMessage } from './blocks.js';
import { PROMPT_ACTION_IDS, renderPrompt } from './prompt-blocks.js';
import { CARD_ACTION } from './card-blocks.js';
import type { SlackConfig } from './config.js';
import { callSlack, decodeMessageId, encodeMessageId, slackErrorCode } from './web-api.js';
import { createSlackSessions, type SlackSessions } from './sessions.js';
import { anyRouteStreams, createSlackStreaming, streamingFor } from './stream.js';

/** Slack's published budgets, before headroom. */
export const SLACK_LIMITS = {
  /** chat.postMessage: about 1 per second per channel (Special tier). */
  postPerChannelPerMinute: 60,
  /** chat.postMessage workspace-wide cap ("several hundred per minute"). */
  postPerWorkspacePerMinute: 300,
  /** chat.update: Tier 3, shared by every live reply in the workspace. */
  updatePerMinute: 50,
  /** chat.delete: Tier 3 (the control message of a streamed reply). */
  deletePerMinute: 50,
  /** reactions.add / reactions.remove: Tier 3, per workspace. */
  reactionsPerMinute: 50,
  /** conversations.replies / conversations.history: Tier 3 for internal apps (docs: rate limits). */
  readPerMinute: 50,
  /** files.getUploadURLExternal / files.completeUploadExternal: Tier 4. */
  filesPerMinute: 100,
  /** Slack's largest file (1 GB). */
  maxFileBytes: 1_000_000_000,
} as const;

/**
 * One message of files: 10 files, as Slack's own composer takes (the API documents no number),
 * and 100 MiB in all: files.uploadV2 holds a message's files in memory while it uploads them.
 */
const SLACK_FILE_LIMITS: Omit<FileLimits, 'maxFileBytes'> = { maxFiles: 10, maxMessageBytes: 100 * 1048576 };

/** Pages of a conversation read when recovery looks for a message by its marker (200 messages a page). */
const FIND_PAGES = 10;
const MARKED_ACTIONS = new Set([...Object.values(PROMPT_ACTION_IDS), ACTION_STOP]);
const marked = (actionId: string | undefined): boolean => MARKED_ACTIONS.has(actionId ?? '') || CARD_ACTION.test(actionId ?? '');

/** A message of files carries its marker as the block id of its caption (files.completeUploadExternal `blocks`). */
function carriesFileMarker(blocks: unknown, marker: string): boolean {
  return Array.isArray(blocks) && blocks.some((b: { block_id?: string }) => b?.block_id === marker);
}

/**
 * A prompt's (and a card's) buttons carry its id as their value, a live reply's Stop button its
 * stop id: the markers recovery looks for.
 */
function carriesMarker(blocks: unknown, marker: string): boolean {
  if (!Array.isArray(blocks)) return false;
  return blocks.some((b: { type?: string; elements?: Array<{ action_id?: string; value?: string }> }) =>
    b?.type === 'actions' && (b.elements ?? []).some((e) => e.value === marker && marked(e.action_id)));
}

/* The user groups (S…) whose membership matters, and a person's among them. */

const GROUP_ID = /^S[A-Z0-9]+$/;

/**
 * The user groups (S…) whose membership matters: the `slack:S…` entries of the bridge-wide lists,
 * and every route's allow_users / approvers / approver_groups (bare `S…` there means Slack, on a
 * route for Slack or for any platform).
 */
export function namedUserGroups(bridgeWide: readonly string[], routes: readonly RouteConfig[]): string[] {
  const out = new Set<string>();
  for (const e of bridgeWide) if (e.startsWith('slack:S')) out.add(e.slice('slack:'.length));
  for (const r of routes) {
    if (r.platform !== undefined && r.platform !== 'slack') continue;
    for (const e of [...(r.allowUsers ?? []), ...(r.approvers ?? []), ...(r.approverGroups ?? [])]) {
      const id = e.trim().replace(/^slack:/i, '');
      if (GROUP_ID.test(id)) out.add(id);
    }
  }
  return [...out];
}

/** The named groups a person is in (needs usergroups:read; a failed lookup is "not a member"). */
export function createGroupsOf(
  userGroups: readonly string[] | undefined,
  groupMembers: ((groupId: string) => Promise<readonly string[]>) | undefined,
): (user: string) => Promise<string[]> {
  return async (user) => {
    if (!groupMembers || !userGroups?.length) return [];
    // In parallel: a click must open a modal within Slack's 3 s trigger window.
    const members = await Promise.all(userGroups.map((g) => groupMembers(g).catch(() => [] as readonly string[])));
    return userGroups.filter((_, i) => members[i]!.includes(user));
  };
}

/** How long a user group's member list is reused. */
const GROUP_CACHE_MS = 60_000;

/** Share of each budget the bridge uses; the rest is headroom for clock skew and other calls. */
const HEADROOM = 0.9;

const REACTION: Record<ReactionState, string> = { working: 'eyes', success: 'white_check_mark', failure: 'x' };

export interface SlackSurfaceOptions {
  client: webApi.WebClient;
  /** `streaming` absent = edit (post + chat.update only). */
  config: Pick<SlackConfig, 'reactions' | 'typing' | 'rateScale'> & { streaming?: SlackConfig['streaming'] };
  logger: Logger;
  /** The bridge's routes: a route's `options.streaming` sets the mode for its conversations. */
  routes?: Pick<BridgeConfig, 'routes' | 'dm'>;
  /** The user groups (S…) a person's membership is looked up for: the ones the access and route lists name (namedUserGroups). */
  userGroups?: readonly string[];
}

export interface SlackSurface extends Surface {
  readonly platform: 'slack';
  /** The threads' agent sessions (status, Slack's Stop): the platform clears a stale one on a Stop with nothing running. */
  readonly sessions: SlackSessions;
  /** The named user groups a person is in (their roles: messages, clicks, forms and Stop alike). */
  groupsOf(user: string): Promise<string[]>;
}

export function createSlackSurface(opts: SlackSurfaceOptions): SlackSurface {
  const { client, config, logger } = opts;
  const scale = config.rateScale;
  let typingEnabled = config.typing;

  const capabilities: SurfaceCapabilities = {
    maxTextChars: 3_500,
    maxThinkingChars: 300,
    buttons: true,
    minEditIntervalMs: Math.max(1, Math.round(1_200 / scale)),
  };

  const budgets = (op: 'post' | 'edit', c: Conversation): RateBudget[] => op === 'post'
    ? [
      { key: `slack:${c.space}:${c.channel}:post`, perMinute: Math.floor(SLACK_LIMITS.postPerChannelPerMinute * HEADROOM * scale), burst: 1 },
      { key: `slack:${c.space}:chat.postMessage`, perMinute: Math.floor(SLACK_LIMITS.postPerWorkspacePerMinute * HEADROOM * scale), burst: 5 },
    ]
    : [{ key: `slack:${c.space}:chat.update`, perMinute: Math.floor(SLACK_LIMITS.updatePerMinute * HEADROOM * scale), burst: 1 }];

  async function postRendered(c: Conversation, r: { text: string; blocks: unknown[] }): Promise<MessageRef> {
    const res = await callSlack('chat.postMessage', () => client.chat.postMessage({
      channel: c.channel,
      ...(c.thread ? { thread_ts: c.thread } : {}),
      text: r.text,
      blocks: r.blocks as never,
      unfurl_links: false,
      unfurl_media: false,
    }));
    if (!res.ts) throw new Error('chat.postMessage answered ok without a ts');
    return { id: encodeMessageId(res.channel ?? c.channel, res.ts), conversation: c };
  }

  async function updateRendered(ref: MessageRef, r: { text: string; blocks: unknown[] }): Promise<void> {
    const { channel, ts } = decodeMessageId(ref.id);
    await callSlack('chat.update', () => client.chat.update({ channel, ts, text: r.text, blocks: r.blocks as never }));
  }

  async function reaction(kind: 'add' | 'remove', channel: string, ts: string, name: string): Promise<void> {
    try {
      if (kind === 'add') await client.reactions.add({ channel, timestamp: ts, name });
      else await client.reactions.remove({ channel, timestamp: ts, name });
    } catch (e) {
      const code = slackErrorCode(e);
      if (code === 'already_reacted' || code === 'no_reaction') return;
      logger.warn({ err: code ?? (e as Error)?.message, reaction: name, op: kind }, 'slack reaction failed');
    }
  }

  // Approver groups: members change rarely, and a click must open a modal within 3 s.
  const groups = new Map<string, { at: number; members: Promise<readonly string[]> }>();
  async function groupMembers(id: string): Promise<readonly string[]> {
    const hit = groups.get(id);
    if (hit && Date.now() - hit.at < GROUP_CACHE_MS) return hit.members;
    const members = client.usergroups.users.list({ usergroup: id }).then((r) => r.users ?? [], (e: unknown) => {
      logger.warn({ err: slackErrorCode(e) ?? (e as Error)?.message, usergroup: id }, 'slack usergroups.users.list failed (the app needs usergroups:read); the group counts as empty');
      groups.delete(id);
      return [] as string[];
    });
    groups.set(id, { at: Date.now(), members });
    return members;
  }

  /** The bot's messages in the conversation whose blocks match, oldest first (paged; FIND_PAGES at most). */
  async function scan(c: Conversation, match: (blocks: unknown) => boolean): Promise<MessageRef[]> {
    const hits: MessageRef[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < FIND_PAGES; page++) {
      const args = { channel: c.channel, limit: 200, ...(cursor ? { cursor } : {}) };
      const res = c.thread
        ? await callSlack('conversations.replies', () => client.conversations.replies({ ...args, ts: c.thread! }))
        : await callSlack('conversations.history', () => client.conversations.history(args));
      for (const m of res.messages ?? []) if (m.ts && match(m.blocks)) hits.push({ id: encodeMessageId(c.channel, m.ts), conversation: c });
      cursor = res.response_metadata?.next_cursor || undefined;
      if (!res.has_more || !cursor) return c.thread ? hits : hits.reverse();
    }
    logger.warn({ channel: c.channel, pages: FIND_PAGES }, 'slack: read only the first pages of a conversation looking for messages being posted at a crash');
    return c.thread ? hits : hits.reverse();
  }

  const sessions = createSlackSessions({ client, logger, rateScale: scale, headroom: HEADROOM });
  const mode = config.streaming ?? 'edit';
  const routes = opts.routes;
  const streaming = mode === 'edit' && !(routes && anyRouteStreams(routes)) ? undefined : createSlackStreaming({
    client, mode, rateScale: scale, headroom: HEADROOM, logger,
    ...(routes ? { modeOf: (c: Conversation) => streamingFor(routes, mode, c) } : {}),
    sessionStatus: (c) => sessions.statusOf(c),
  });

  return {
    platform: 'slack',
    capabilities,
    budgets,
    streaming,
    sessions,
    showActivity: (c: Conversation, activity: ConversationActivity, about?: ActivityAbout) => sessions.show(c, activity, about),
    activityBudgets: (c: Conversation) => sessions.budgets(c),
    neutralizeMentions,
    async remove(ref: MessageRef): Promise<void> {
      const { channel, ts } = decodeMessageId(ref.id);
      try {
        await callSlack('chat.delete', () => client.chat.delete({ channel, ts }));
      } catch (e) {
        if ((e as { found?: unknown }).found === 'message_not_found') return;
        throw e;
      }
    },
    removeBudgets: (c: Conversation): RateBudget[] => [
      { key: `slack:${c.space}:chat.delete`, perMinute: Math.floor(SLACK_LIMITS.deletePerMinute * HEADROOM * scale), burst: 1 },
    ],
    post: (c, content: MessageContent) => postRendered(c, renderMessage(content)),
    edit: (ref, content: MessageContent) => updateRendered(ref, renderMessage(content)),
    postPrompt: (c, view: PermissionPromptView) => postRendered(c, renderPrompt(view)),
    updatePrompt: (ref, view: PermissionPromptView) => updateRendered(ref, renderPrompt(view)),
    groupMembers,
    groupsOf: createGroupsOf(opts.userGroups, groupMembers),

    // The thread's messages (conversations.replies, oldest first, paged), or the channel's latest
    // ones for a conversation outside a thread (conversations.history).
    findPosted: (c: Conversation, marker: string) => scan(c, (blocks) => carriesMarker(blocks, marker)),

    // Files go up with files.uploadV2 (files.getUploadURLExternal, the upload, one
    // files.completeUploadExternal sharing them in the thread); Slack shows images inline. The
    // caption is a context block whose block id is the post's marker (a markdown block there makes
    // Slack answer internal_error: slack-morphism's notes on completeUploadExternal).
    async postFiles(c: Conversation, post: FilePost): Promise<void> {
      await callSlack('files.uploadV2', () => client.files.uploadV2({
        channel_id: c.channel,
        ...(c.thread ? { thread_ts: c.thread } : {}),
        blocks: [{ type: 'context', block_id: post.marker, elements: [{ type: 'mrkdwn', text: escapeMrkdwn(post.caption || post.files.map((f) => f.name).join(', ')) }] }],
        file_uploads: post.files.map((f) => ({ file: f.data, filename: f.name, title: f.name })) as [{ file: Buffer; filename: string; title: string }],
      }));
    },
    fileLimits: (): FileLimits => ({ ...SLACK_FILE_LIMITS, maxFileBytes: SLACK_LIMITS.maxFileBytes }),
    fileBudgets: (c: Conversation): RateBudget[] => [
      { key: `slack:${c.space}:${c.channel}:post`, perMinute: Math.floor(SLACK_LIMITS.postPerChannelPerMinute * HEADROOM * scale), burst: 1 },
      { key: `slack:${c.space}:files`, perMinute: Math.floor(SLACK_LIMITS.filesPerMinute * HEADROOM * scale), burst: 2 },
    ],
    findFiles: async (c: Conversation, post) => (await scan(c, (blocks) => carriesFileMarker(blocks, post.marker))).length > 0,
    findBudgets: (c: Conversation): RateBudget[] => [
      { key: `slack:${c.space}:${c.thread ? 'conversations.replies' : 'conversations.history'}`, perMinute: Math.floor(SLACK_LIMITS.readPerMinute * HEADROOM * scale), burst: 1 },
    ],
    // "Ephemeral messages in threads are only shown if there is already an active thread" (the
    // chat.postEphemeral docs): a top-level mention's own ts is no thread yet, so it goes in the channel.
    async tellPrivately(source: SourceMessageRef, user, text: string): Promise<'here'> {
      const { channel, ts } = decodeMessageId(source.id);
      const thread = source.conversation.thread && source.conversation.thread !== ts ? source.conversation.thread : undefined;
      await callSlack('chat.postEphemeral', () => client.chat.postEphemeral({ channel, user: user.id, text, ...(thread ? { thread_ts: thread } : {}) }));
      return 'here';
    },

    async showTyping(c: Conversation): Promise<void> {
      // An agent session shows Slack's own "Working…" (and assistant.threads.setStatus is bridged onto it).
      if (!typingEnabled || !c.thread || sessions.state.kind === 'on') return;
      try {
        await client.assistant.threads.setStatus({ channel_id: c.channel, thread_ts: c.thread, status: 'is thinking…' });
      } catch (e) {
        const code = slackErrorCode(e);
        if (code) {
          // not an assistant-enabled app / missing scope: stop asking
          typingEnabled = false;
          logger.info({ err: code }, 'slack assistant.threads.setStatus unavailable; typing status turned off');
        }
      }
    },

    reactBudgets(source: SourceMessageRef, state: ReactionState): RateBudget[] {
      const method = (m: string): RateBudget => ({ key: `slack:${source.conversation.space}:${m}`, perMinute: Math.floor(SLACK_LIMITS.reactionsPerMinute * HEADROOM * scale), burst: 1 });
      return state === 'working' ? [method('reactions.add')] : [method('reactions.remove'), method('reactions.add')];
    },

    async react(source: SourceMessageRef, state: ReactionState): Promise<void> {
      if (!config.reactions) return;
      const { channel, ts } = decodeMessageId(source.id);
      if (state !== 'working') await reaction('remove', channel, ts, REACTION.working);
      await reaction('add', channel, ts, REACTION[state]);
    },
  };
}
