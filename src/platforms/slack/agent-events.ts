/**
 * The events Slack sends an app declared an agent (docs.slack.dev/ai/agent-sessions):
 *
 * - agent_session_stopped {channel, thread_ts, user, streaming_message_ts[]}: someone clicked
 *   Slack's own Stop on a thread's "Working…". It stops the thread's turn as our Stop button
 *   does (the bridge checks the same rights and finds the turn on whichever replica holds it).
 *   Slack has already stopped the streams it lists; the session stays `processing` until the app
 *   moves it, which the turn's end does, or, with nothing running here (a stale status), this.
 *   A refusal is told to that person alone (an ephemeral message in the thread).
 * - app_home_opened: subscribed because Slack's agent guide asks for it; not used yet.
 *
 * Redeliveries repeat the event id: claimed once in the bridge state (across replicas too).
 */
import type { App, webApi } from '@slack/bolt';
import type { BridgeInbound } from '../../bridge/types.js';
import type { Logger } from '../../log.js';
import { slackUser } from './clicker.js';
import type { SlackSessions } from './sessions.js';

export interface AgentListenerDeps {
  logger: Logger;
  client: webApi.WebClient;
  bridge: () => BridgeInbound | undefined;
  sessions?: SlackSessions;
  resolveUser(id: string): Promise<string | undefined>;
  groupsOf(user: string): Promise<string[]>;
}

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

  // Slack's agent guide subscribes agents to it; acked and ignored.
  app.event('app_home_opened', async () => {});
}
