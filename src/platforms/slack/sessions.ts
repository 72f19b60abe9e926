/**
 * Slack agent sessions (docs.slack.dev/ai/agent-sessions): each thread the bot works in has a
 * session whose status Slack shows, "Working…" with Slack's own Stop button while it is
 * `processing`. The bridge's ConversationActivity maps onto it: working -> processing, waiting
 * (a permission prompt) -> suspended, idle -> active, closed (`new`) -> closed. The session's
 * title comes from the message that created it (Slack keeps a title only from creation; a session
 * chat.startStream made first, untitled, is renamed once).
 *
 * Only an app declared an agent may have sessions. The first answer that means "not this app"
 * (not_authorized, missing_scope, feature_disabled, unknown_method, ...) turns sessions off for
 * the process with one warning saying what to enable; replies go on exactly as before. The
 * warning missing_agent_session_stopped_event_subscription (Slack then shows "Working…" with no
 * Stop button) is said once too.
 *
 * A session left `processing` for an hour goes `active` by itself (Slack), so a long turn sends
 * `processing` again every REFRESH_MS. Conversations without a thread (a top-level DM) have no
 * session: Slack scopes sessions to a thread.
 */
import type { webApi } from '@slack/bolt';
import type { Conversation } from '../../chat.js';
import type { ActivityAbout, ConversationActivity, RateBudget } from '../../delivery/surface.js';
import type { SuggestedPrompt } from '../../config/types.js';
import type { Logger } from '../../log.js';
import { SLACK_AGENT_SCOPE as AGENT_SCOPE } from './scopes.js';
import { slackErrorCode, toSurfaceError } from './web-api.js';

export type SessionStatus = 'active' | 'processing' | 'suspended' | 'closed';

/** Whether this app has sessions: not known before the first answer, then on or off for good. */
export type SessionsState = { kind: 'unknown' } | { kind: 'on' } | { kind: 'off'; reason: string };

const STATUS: Record<ConversationActivity, SessionStatus> = { working: 'processing', waiting: 'suspended', idle: 'active', closed: 'closed' };

/** Answers that mean the app may not have sessions at all (not declared an agent, no scope, no feature). */
const NOT_THIS_APP = new Set([
  'not_authorized', 'not_agent_app', 'missing_scope', 'feature_disabled', 'unknown_method', 'method_deprecated',
  'deprecated_endpoint', 'not_allowed_token_type', 'access_denied', 'is_bot', 'enterprise_is_restricted', 'team_not_enabled',
]);

export const STOP_SUBSCRIPTION_WARNING = 'missing_agent_session_stopped_event_subscription';

/** Slack ends `processing` after an hour; sent again well before. */
const REFRESH_MS = 50 * 60_000;

/** Slack allows 200; a title is for recall in a list, so it is kept short. */
export const TITLE_MAX = 80;

/**
 * Slack publishes no tier for agents.sessions.setStatus in the pages read for this; paced as Tier
 * 3 (50/min per workspace), as third-party clients do, with a burst so turns starting together
 * are not held back.
 */
const SET_STATUS_PER_MINUTE = 50;

export interface SlackSessions {
  readonly state: SessionsState;
  /** Set the thread's session to what `activity` means (no thread, or sessions off: nothing). Throws RateLimitedError on 429. */
  show(c: Conversation, activity: ConversationActivity, about?: ActivityAbout): Promise<void>;
  budgets(c: Conversation): RateBudget[];
  /**
   * The status the thread's session was last asked for, while it is not active or closed
   * (chat.stopStream sets `session_status`, default active: a stream stopped mid-turn, above a
   * prompt or at a part's end, must not end "Working…").
   */
  statusOf(c: Conversation): SessionStatus | undefined;
  /**
   * The bot token's scopes as Slack reported them (auth.test's x-oauth-scopes; undefined when it
   * did not): without assistant:write the app is not declared an agent, so sessions are off before
   * any call is made.
   */
  fromScopes(scopes: readonly string[] | undefined): void;
  /**
   * Suggested prompts at the top of the app's Messages tab in a DM (assistant.threads.setSuggestedPrompts,
   * without thread_ts: "Including it in a call for an agent app will cause the call to silently
   * fail"). Not while sessions are off (an app that is not an agent has no such tab); a refusal
   * for the app as a whole is said once and ends the asking.
   */
  suggest(channel: string, prompts: readonly SuggestedPrompt[]): Promise<void>;
  /** Stop the refresh timers. */
  close(): void;
}

export interface SlackSessionsOptions {
  client: webApi.WebClient;
  logger: Logger;
  rateScale: number;
  headroom: number;
  /** How often a long turn sends `processing` again (default REFRESH_MS). */
  refreshMs?: number;
}

/** A session title from a message: its first line, whitespace collapsed, at most TITLE_MAX characters. */
export function sessionTitle(text: string): string {
  const line = text.split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).find((l) => l.length > 0) ?? '';
  return line.length > TITLE_MAX ? `${line.slice(0, TITLE_MAX - 1).trimEnd()}…` : line;
}

export function createSlackSessions(opts: SlackSessionsOptions): SlackSessions {
  const { client, logger } = opts;
  let state: SessionsState = { kind: 'unknown' };
  let warnedStop = false;
  let suggesting = true;
  /** Threads with a session in a status other than active/closed, and their refresh timers. */
  const threads = new Map<string, { status: SessionStatus; refresh?: NodeJS.Timeout }>();
  const keyOf = (c: Conversation): string => `${c.space}:${c.channel}:${c.thread}`;

  function turnOff(code: string, why = 'agents.sessions.setStatus was refused'): void {
    if (state.kind === 'off') return;
    state = { kind: 'off', reason: code };
    for (const t of threads.values()) clearTimeout(t.refresh);
    threads.clear();
    logger.warn({ err: code },
      `slack agent sessions are off: ${why}, so threads show no "Working…" status and no Slack Stop button (replies, our Stop button and everything else work as before). To have them: declare the app an agent (api.slack.com/apps -> the app -> Agents, or features.agent_view in slack-app-manifest.yaml), subscribe to agent_session_stopped, reinstall; turnbridge doctor checks it (docs/slack.md)`);
  }

  function noteWarnings(res: webApi.AgentsSessionsSetStatusResponse): void {
    const warnings = [...(res.response_metadata?.warnings ?? []), ...(typeof res.warning === 'string' ? [res.warning] : [])];
    if (warnedStop || !warnings.includes(STOP_SUBSCRIPTION_WARNING)) return;
    warnedStop = true;
    logger.warn({ warning: STOP_SUBSCRIPTION_WARNING },
      'slack shows "Working…" without a Stop button: the app does not subscribe to the agent_session_stopped event. Add it under Event Subscriptions -> Subscribe to bot events (slack-app-manifest.yaml has it), then reinstall');
  }

  function schedule(c: Conversation, status: SessionStatus): void {
    const key = keyOf(c);
    clearTimeout(threads.get(key)?.refresh);
    if (status === 'active' || status === 'closed') {
      threads.delete(key);
      return;
    }
    const entry: { status: SessionStatus; refresh?: NodeJS.Timeout } = { status };
    if (status === 'processing') {
      entry.refresh = setTimeout(() => {
        if (threads.get(key) !== entry) return;
        void set(c, 'processing').catch((err: unknown) => logger.debug({ err }, 'slack: refreshing an agent session failed'));
      }, opts.refreshMs ?? REFRESH_MS);
      entry.refresh.unref?.();
    }
    threads.set(key, entry);
  }

  async function set(c: Conversation, status: SessionStatus, about?: ActivityAbout): Promise<void> {
    const title = about ? sessionTitle(about.text) : '';
    // Asked for now, before the answer: a stream stopped meanwhile carries the new status.
    schedule(c, status);
    let res: webApi.AgentsSessionsSetStatusResponse;
    try {
      res = await client.agents.sessions.setStatus({
        channel_id: c.channel, thread_ts: c.thread, status,
        ...(title ? { title } : {}),
        ...(about ? { initiator_user_id: about.author.id } : {}),
      });
    } catch (e) {
      const code = slackErrorCode(e);
      if (code && NOT_THIS_APP.has(code)) return turnOff(code);
      const err = toSurfaceError(e, 'agents.sessions.setStatus');
      if (err.name === 'RateLimitedError') throw err;
      logger.warn({ err: code ?? (e as Error)?.message, status, channel: c.channel }, 'slack agent session status not set');
      return;
    }
    if (state.kind === 'unknown') {
      state = { kind: 'on' };
      logger.info('slack agent sessions on: threads show Slack\'s "Working…" status and Stop button');
    }
    noteWarnings(res);
    // A session a stream made first has no title; Slack keeps a title from creation only.
    if (title && !res.title) {
      await client.agents.sessions.rename({ channel_id: c.channel, thread_ts: c.thread, title })
        .catch((e: unknown) => logger.debug({ err: slackErrorCode(e) ?? (e as Error)?.message }, 'slack: naming an agent session failed'));
    }
  }

  return {
    get state() {
      return state;
    },
    async show(c, activity, about) {
      if (!c.thread || state.kind === 'off') return;
      await set(c, STATUS[activity], activity === 'working' ? about : undefined);
    },
    budgets: (c) => [{
      key: `slack:${c.space}:agents.sessions.setStatus`,
      perMinute: Math.max(1, Math.floor(SET_STATUS_PER_MINUTE * opts.headroom * opts.rateScale)),
      burst: 10,
    }],
    fromScopes(scopes) {
      if (scopes === undefined || state.kind !== 'unknown' || scopes.includes(AGENT_SCOPE)) return;
      turnOff('no_assistant_write', `the bot token has no ${AGENT_SCOPE} (the app is not declared an agent)`);
    },
    async suggest(channel, prompts) {
      if (!suggesting || state.kind === 'off' || prompts.length === 0) return;
      try {
        // @slack/web-api 8.2 types thread_ts as required; Slack's page says an agent app must leave it out.
        const args = { channel_id: channel, prompts: prompts.map((p) => ({ title: p.title, message: p.message })) };
        await client.assistant.threads.setSuggestedPrompts(args as webApi.AssistantThreadsSetSuggestedPromptsArguments);
      } catch (e) {
        const code = slackErrorCode(e);
        if (code && NOT_THIS_APP.has(code)) {
          suggesting = false;
          logger.warn({ err: code }, `slack suggested prompts are off: assistant.threads.setSuggestedPrompts was refused (they need the app declared an agent, with ${AGENT_SCOPE})`);
          return;
        }
        logger.warn({ err: code ?? (e as Error)?.message, channel }, 'slack suggested prompts not set');
      }
    },
    statusOf(c) {
      return state.kind === 'off' ? undefined : threads.get(keyOf(c))?.status;
    },
    close() {
      for (const t of threads.values()) clearTimeout(t.refresh);
      threads.clear();
    },
  };
}
