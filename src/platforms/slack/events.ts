/**
 * Bolt listeners: Slack events -> InboundMessage, the Stop button -> ActionEvent (prompt clicks and
 * modals: prompt-actions.ts; Slack's own Stop on an agent session: agent-events.ts).
 *
 * - app_mention in a channel: the thread of that message is the conversation (thread_ts ?? ts);
 *   once the bridge accepted it the bridge owns the thread (in its state, so across restarts and
 *   replicas): later messages there continue without a mention.
 * - message.im: top-level DM messages are one conversation per DM channel (thread ''), a DM
 *   thread is its own conversation.
 * - One @mention arrives twice with message.channels subscribed (app_mention + message): the
 *   channel+ts key, claimed in the bridge's state, makes it one turn (also across replicas). A
 *   redelivered envelope repeats its event_id: the bridge drops it.
 */
import type { App, webApi } from '@slack/bolt';
import { BoundedMap } from '../../bounded-map.js';
import type { ActionEvent, BridgeInbound, InboundMessage } from '../../bridge/types.js';
import type { Logger } from '../../log.js';
import { attachmentRef } from '../index.js';
import { registerAgentListeners } from './agent-events.js';
import { ACTION_RERUN, ACTION_STOP } from './blocks.js';
import { slackClickEvent } from './clicker.js';
import type { SuggestedPrompt } from '../../config/types.js';
import type { SlackConfig } from './config.js';
import { slackDownloads, slackRemoteFiles, type SlackFile } from './files.js';
import { registerPromptListeners } from './prompt-actions.js';
import type { SlackSessions } from './sessions.js';
import { encodeMessageId } from './web-api.js';

/** Message subtypes that are a person writing to us; everything else (edits, joins, ...) is ignored. */
const ACCEPTED_SUBTYPES = new Set(['file_share', 'thread_broadcast']);

/** How long a follow-up waits, check after check, for its claimed root to be accepted (12.75 s in all). */
const ROOT_WAITS_MS = [50, 100, 200, 400, 800, 1600, 3200, 6400];

/** The fields of message / app_mention events this module reads. */
interface MessageLikeEvent {
  type: string;
  subtype?: string;
  channel: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  files?: SlackFile[];
}

export interface SlackListenerDeps {
  config: SlackConfig;
  logger: Logger;
  /** The bot's WebClient (users.info, chat.postEphemeral). */
  client: webApi.WebClient;
  bridge: () => BridgeInbound | undefined;
  now?: () => number;
  /** The named user groups a person is in (the surface's groupsOf: its cached usergroups.users.list, shared with approver groups). */
  groupsOf(user: string): Promise<string[]>;
  /** The threads' agent sessions (agent-events.ts clears a stale one, sets a DM's suggested prompts). */
  sessions?: SlackSessions;
  /** The suggested prompts of the route a DM takes. */
  suggestedPrompts?(team: string, channel: string): readonly SuggestedPrompt[];
}

/** Kept by the platform across Bolt app rebuilds (reconnect attempts). */
export interface SlackListenerState {
  userNames: BoundedMap<string, string | null>;
}

export function createListenerState(): SlackListenerState {
  return { userNames: new BoundedMap(2_000) };
}

export function registerSlackListeners(app: App, deps: SlackListenerDeps, state: SlackListenerState): void {
  const { config, logger, client } = deps;
  const downloads = slackDownloads(config, logger);
  const now = deps.now ?? Date.now;
  const { userNames } = state;

  async function resolveUser(id: string): Promise<string | undefined> {
    const cached = userNames.get(id);
    if (cached !== undefined) return cached ?? undefined;
    try {
      const res = await client.users.info({ user: id });
      const u = res.user;
      const name = u?.profile?.display_name || u?.profile?.real_name || u?.real_name || u?.name || null;
      userNames.set(id, name);
      return name ?? undefined;
    } catch (e) {
      logger.debug({ user: id, err: (e as Error)?.message }, 'slack users.info failed; showing the id');
      userNames.set(id, null);
      return undefined;
    }
  }

  const { groupsOf } = deps;

  /**
   * Whether a follow-up without a mention continues a thread of the bot's. Its root may still be
   * on its way to acceptance (here or on another replica: the root's claim is taken first, the
   * thread's ownership is recorded with its accepted turn), so a follow-up whose root is claimed
   * but not yet owned waits for the decision (bounded) instead of being dropped.
   */
  async function threadOwned(bridge: BridgeInbound, team: string, channel: string, threadTs: string, ts: string): Promise<boolean> {
    const conversation = { space: team, channel, thread: threadTs };
    if (await bridge.ownsThread('slack', conversation)) return true;
    if (!(await bridge.isClaimed('slack', `msg:${channel}:${threadTs}`))) return false;
    logger.debug({ channel, thread: threadTs, ts }, 'a follow-up came before its thread was accepted; waiting for the root');
    for (const ms of ROOT_WAITS_MS) {
      await new Promise((r) => setTimeout(r, ms));
      if (await bridge.ownsThread('slack', conversation)) return true;
    }
    logger.info({ channel, thread: threadTs, ts }, 'a follow-up in a thread whose root was not accepted (refused, or still undecided after 12.75 s): ignored');
    return false;
  }

  async function onMessage(event: MessageLikeEvent, body: { event_id?: string; team_id?: string }, ctx: { teamId?: string; botUserId?: string; botId?: string }, viaMention: boolean): Promise<void> {
    const bridge = deps.bridge();
    if (!bridge) return;
    if (event.subtype && !ACCEPTED_SUBTYPES.has(event.subtype)) return;
    const botUserId = ctx.botUserId;
    if (botUserId && event.user === botUserId) return;
    if (ctx.botId && event.bot_id === ctx.botId) return;
    if (event.bot_id && !config.allowBots) return;
    if (!event.user || !event.channel || !event.ts) return;

    const team = ctx.teamId ?? body.team_id ?? '';
    const text = event.text ?? '';
    const isDm = event.channel_type === 'im' || (event.channel_type === undefined && event.channel.startsWith('D'));
    let thread: string;
    if (isDm) {
      thread = event.thread_ts ?? '';
    } else if (viaMention || mentionsUser(text, botUserId)) {
      thread = event.thread_ts ?? event.ts;
    } else if (event.thread_ts && (await threadOwned(bridge, team, event.channel, event.thread_ts, event.ts))) {
      thread = event.thread_ts;
    } else {
      return;
    }

    // One turn per user message: the twin event (app_mention + message) and redeliveries carry the
    // same channel + ts. The claim is atomic in the bridge state, so twins in flight at once are fine.
    // The event id is claimed with it, in one commit (the bridge does not claim it again); taken
    // before any await, so the first of two twins is the one that runs.
    const eventId = body.event_id ?? `${event.channel}:${event.ts}`;
    if (!(await bridge.claimEvent('slack', eventId, `msg:${event.channel}:${event.ts}`))) {
      logger.debug({ eventId: body.event_id, channel: event.channel, ts: event.ts }, 'slack message already taken; dropped');
      return;
    }

    const receivedAt = now();
    const conversation = { space: team, channel: event.channel, thread };
    const [clean, name, groups] = await Promise.all([
      normalizeInboundText(text, { botUserId, resolveUser }),
      resolveUser(event.user),
      groupsOf(event.user),
    ]);
    // Nothing is downloaded here: the bridge fetches the files after its access and queue checks.
    const { remote, notices } = event.files?.length ? slackRemoteFiles(event.files, config.botToken, config.apiUrl) : { remote: [], notices: [] };
    const msg: InboundMessage = {
      platform: 'slack',
      conversation,
      user: { id: event.user, ...(name ? { name } : {}), ...(groups.length ? { roles: groups } : {}) },
      text: clean,
      attachments: [],
      eventId,
      claimed: true,
      receivedAt,
      source: { id: encodeMessageId(event.channel, event.ts), conversation },
      direct: isDm,
      ...(notices.length ? { notices } : {}),
      ...(remote.length ? {
        download: { count: remote.length, fetch: (dir) => downloads.download(remote, dir) },
        // Kept with a queued turn (no token): fetched again by Surface.fetchAttachments after a restart.
        attachmentRefs: remote.map(attachmentRef),
      } : {}),
    };
    logger.debug({ channel: event.channel, thread, user: event.user, text: clean }, 'slack message in');
    try {
      await bridge.handleMessage(msg);
    } catch (e) {
      logger.error({ err: e, channel: event.channel }, 'bridge refused a Slack message');
      await msg.cleanup?.().catch(() => {});
    }
  }

  app.event('app_mention', async ({ event, body, context }) => {
    await onMessage(event as unknown as MessageLikeEvent, body, context, true);
  });
  app.event('message', async ({ event, body, context }) => {
    await onMessage(event as unknown as MessageLikeEvent, body, context, false);
  });

  registerPromptListeners(app, { logger, client, bridge: deps.bridge, userName: resolveUser, groupsOf });
  registerAgentListeners(app, { logger, client, bridge: deps.bridge, sessions: deps.sessions, resolveUser, groupsOf, ...(deps.suggestedPrompts ? { suggestedPrompts: deps.suggestedPrompts } : {}) });

  app.action(new RegExp(`^(${ACTION_STOP}|${ACTION_RERUN})$`), async ({ ack, body, action, respond }) => {
    await ack();
    const bridge = deps.bridge();
    if (!bridge || body.type !== 'block_actions' || action.type !== 'button') return;
    const button = action as { action_id: string; value?: string };
    const kind: ActionEvent['action'] = button.action_id === ACTION_RERUN ? 'rerun' : 'stop';
    const { ev } = await slackClickEvent({ client, logger, groupsOf }, body, kind, button.value ?? '', respond);
    try {
      await bridge.handleAction(ev);
    } catch (e) {
      logger.error({ err: e, action: kind }, 'bridge failed to handle a Slack button click');
    }
  });
}

/*
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
