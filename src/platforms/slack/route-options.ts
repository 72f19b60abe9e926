/**
 * What a route says to Slack: its `options.streaming` (auto | native | edit) for the conversations
 * it serves, over the bridge-wide slack.streaming / SLACK_STREAMING, and its `suggested_prompts`
 * (shown at the top of an agent app's Messages tab, so only a DM's route has them on Slack).
 *
 * Why a route may want post + edit: a native stream in a channel is sent to one recipient
 * (chat.startStream's recipient_user_id, "the user to receive the streaming text"); one
 * integrator reports the others see a placeholder until it stops. Slack's pages do not say, so the
 * default stays native where Slack allows it and a route can choose.
 */
import type { Conversation } from '../../chat.js';
import { placeOf } from '../../bridge/access/index.js';
import type { BridgeConfig, RouteConfig, SuggestedPrompt } from '../../config/types.js';
import { SLACK_STREAMING_MODES, type SlackStreaming } from './config.js';

type Routes = Pick<BridgeConfig, 'routes' | 'dm'> & { file?: string };

const forSlack = (r: RouteConfig): boolean => r.platform === undefined || r.platform === 'slack';

// Every Slack route's `options.streaming` is checked with the rest of the configuration, before anything starts.
export { checkSlackRouteOptions } from '../../config/platform-configs.js';

/** The route serving a Slack conversation (a DM's own, for a D… channel), if any. */
function routeOf(config: Routes, c: Conversation): RouteConfig | undefined {
  const place = placeOf(config, { platform: 'slack', conversation: c, direct: c.channel.startsWith('D') });
  return place.kind === 'default' ? undefined : place.route;
}

/** The streaming mode for a conversation: its route's `options.streaming`, else `fallback`. */
export function streamingFor(config: Routes, fallback: SlackStreaming, c: Conversation): SlackStreaming {
  const v = routeOf(config, c)?.options?.streaming;
  return typeof v === 'string' && (SLACK_STREAMING_MODES as readonly string[]).includes(v) ? (v as SlackStreaming) : fallback;
}

/** Whether some Slack route streams even though the bridge-wide mode is edit. */
export function anyRouteStreams(config: Routes): boolean {
  return [...config.routes, ...(config.dm ? [config.dm] : [])].some((r) => forSlack(r) && (r.options?.streaming === 'auto' || r.options?.streaming === 'native'));
}

/** The suggested prompts of a DM's route. */
export function dmSuggestedPrompts(config: Routes, team: string, channel: string): SuggestedPrompt[] {
  return routeOf(config, { space: team, channel, thread: '' })?.suggestedPrompts ?? [];
}
