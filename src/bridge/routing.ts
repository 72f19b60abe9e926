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
}

/** Which profile serves the message (access is checked apart, in access.ts). */
export function routeMessage(config: BridgeConfig, msg: InboundMessage): Routed {
  const route = matchRoute(config.routes, msg);
  return { route, profilePath: route?.profile ?? config.defaultProfile };
}
