import type { BridgeConfig, RouteConfig } from './api.js';
import type { InboundMessage } from './types.js';

/** The route serving a message: every set field must match; channel beats space beats platform. */
export function matchRoute(routes: readonly RouteConfig[], msg: Pick<InboundMessage, 'platform' | 'conversation'>): RouteConfig | undefined {
  let best: RouteConfig | undefined;
  let bestScore = -1;
  for (const r of routes) {
    if (r.platform !== undefined && r.platform !== msg.platform) continue;
    if (r.space !== undefined && r.space !== msg.conversation.space) continue;
    if (r.channel !== undefined && r.channel !== msg.conversation.channel) continue;
    const score = (r.channel !== undefined ? 4 : 0) + (r.space !== undefined ? 2 : 0) + (r.platform !== undefined ? 1 : 0);
    if (score > bestScore) {
      best = r;
      bestScore = score;
    }
  }
  return best;
}

export interface Routed {
  route?: RouteConfig;
  profilePath: string;
  /** Why the user may not use the bot here; undefined = allowed. */
  refusal?: string;
}

/** Route + access check (allowUsers by user id or role id, allowChannels by channel id). */
export function routeMessage(config: BridgeConfig, msg: InboundMessage): Routed {
  const route = matchRoute(config.routes, msg);
  const profilePath = route?.profile ?? config.defaultProfile;
  if (route?.allowChannels && !route.allowChannels.includes(msg.conversation.channel)) {
    return { route, profilePath, refusal: 'Sorry, I am not enabled in this channel.' };
  }
  if (route?.allowUsers) {
    const ids = [msg.user.id, ...(msg.user.roles ?? [])];
    if (!ids.some((id) => route.allowUsers!.includes(id))) {
      return { route, profilePath, refusal: 'Sorry, you are not allowed to use this bot here. Ask an admin to add you.' };
    }
  }
  return { route, profilePath };
}
