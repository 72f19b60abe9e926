/**
 * The events Slack sends an app declared an agent (docs.slack.dev/ai/agent-sessions):
 *
 * - agent_session_stopped {channel, thread_ts, user, streaming_message_ts[]}: someone clicked
 *   Slack's own Stop on a thread's "Working…". It stops the thread's turn as our Stop button
 *   does (the bridge checks the same rights and finds the turn on whichever replica holds it).
 *   Slack has already stopped the streams it lists; the session stays `processing` until the app
 *   moves it, which the turn's end does, or, with nothing running here (a stale status), this.
 *   A refusal is told to that person alone (an ephemeral message in the thread).
 * - app_home_opened (tab "messages"): someone opened their DM with the app; the suggested prompts
 *   of the route that DM takes (`suggested_prompts:`) are set there, for a person the bridge
 *   admits (a stranger is not shown them). At most once a minute per DM.
 *
 * Redeliveries repeat the event id: claimed once in the bridge state (across replicas too).
 */
import type { App, webApi } from '@slack/bolt';
import type { BridgeInbound } from '../../bridge/types.js';
import { BoundedMap } from '../../bounded-map.js';
import type { BridgeConfig, SuggestedPrompt } from '../../config/types.js';
import type { Logger } from '../../log.js';
import { slackUser } from './clicker.js';
import type { SlackSessions } from './sessions.js';
import { slackRouteOf } from './stream.js';

export interface AgentListenerDeps {
  logger: Logger;
  client: webApi.WebClient;
  bridge: () => BridgeInbound | undefined;
  sessions?: SlackSessions;
  resolveUser(id: string): Promise<string | undefined>;
  groupsOf(user: string): Promise<string[]>;
  /** The suggested prompts of the route a DM takes (dmSuggestedPrompts). */
  suggestedPrompts?(team: string, channel: string): readonly SuggestedPrompt[];
}

/** The suggested prompts of a DM's route (shown at the top of an agent app's Messages tab, so only a DM's route has them on Slack). */
export function dmSuggestedPrompts(config: Pick<BridgeConfig, 'routes' | 'dm'>, team: string, channel: string): SuggestedPrompt[] {
  return slackRouteOf(config, { space: team, channel, thread: '' })?.suggestedPrompts ?? [];
}

/** A Messages tab opened again within this is not asked again. */
const SUGGEST_EVERY_MS = 60_000;

/** The fields of agent_session_stopped this module reads. */
interface StoppedEvent {
  channel?: string;
  thread_ts?: string;
  user?: string;
  streaming_message_ts?: string[];
}

export function registerAgentListeners(app: App, deps: AgentListenerDeps): void {
  const { logger, client } = deps;

  app.event('agent_session_stopped', async ({ event, body, context }) => {
    const bridge = deps.bridge();
    const e = event as StoppedEvent;
    if (!bridge?.handleStop || !e.channel || !e.thread_ts || !e.user) return;
    const eventId = (body as { event_id?: string }).event_id ?? `stop:${e.channel}:${e.thread_ts}:${e.user}`;
    if (!(await bridge.claimEvent('slack', eventId))) return;
    const channel = e.channel;
    const thread = e.thread_ts;
    const conversation = { space: context.teamId ?? (body as { team_id?: string }).team_id ?? '', channel, thread };
    const user = await slackUser(e.user, await deps.resolveUser(e.user), deps.groupsOf);
    logger.info({ channel, thread, user: user.id, streams: e.streaming_message_ts?.length ?? 0 }, 'slack Stop pressed on an agent session');
    try {
      const outcome = await bridge.handleStop({
        platform: 'slack',
        conversation,
        user,
        async notifyPrivately(text) {
          await client.chat.postEphemeral({ channel, user: user.id, text, thread_ts: thread });
        },
      });
      // Nothing runs in this thread anywhere: the status was stale; Slack leaves it to the app.
      if (outcome === 'nothing') await deps.sessions?.show(conversation, 'idle');
    } catch (err) {
      logger.error({ err, channel }, 'bridge failed to handle Slack\'s Stop');
    }
  });

  const suggested = new BoundedMap<string, number>(5_000);
  app.event('app_home_opened', async ({ event, body, context }) => {
    const e = event as { tab?: string; channel?: string; user?: string };
    const bridge = deps.bridge();
    if (e.tab !== 'messages' || !e.channel || !e.user || !deps.suggestedPrompts || !deps.sessions) return;
    const team = context.teamId ?? (body as { team_id?: string }).team_id ?? '';
    const prompts = deps.suggestedPrompts(team, e.channel);
    if (prompts.length === 0) return;
    const skip = (reason: string): void => logger.debug({ channel: e.channel, user: e.user, reason }, 'slack suggested prompts not set');
    if (deps.sessions.state.kind === 'off') return skip('the app is not an agent');
    const last = suggested.get(e.channel);
    if (last !== undefined && Date.now() - last < SUGGEST_EVERY_MS) return skip('set less than a minute ago');
    const user = await slackUser(e.user, undefined, deps.groupsOf);
    if (bridge?.admits && !(await bridge.admits({ platform: 'slack', conversation: { space: team, channel: e.channel, thread: '' }, user, direct: true }))) return skip('not admitted here');
    suggested.set(e.channel, Date.now());
    await deps.sessions.suggest(e.channel, prompts);
  });
}
