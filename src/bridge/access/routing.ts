/**
 * Which route and profile serve a message; the restrictions that hold there are folded in by
 * config/route-rules.ts (docs/security.md, "Routes hold everywhere").
 */
import { resolve } from 'node:path';
import { routeAt, type Place, type Routed } from '../../config/route-rules.js';
import type { BridgeConfig, RouteConfig } from '../../config/types.js';
import type { Logger } from '../../log.js';
import type { Profile } from '../../profile/index.js';
import type { InboundMessage } from '../types.js';

type Where = Pick<InboundMessage, 'platform' | 'conversation' | 'direct'>;

/** The route serving a channel message: every set field must match; channel beats space beats platform. */
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

/**
 * A DM is its own route: `dm:` when set; otherwise it is served like a channel no route names
 * (a route naming only a platform, or the default profile). It never matches a route scoped to a
 * space or a channel: a Slack DM carries the workspace id, and a channel's route is not the DM's.
 */
export function placeOf(config: Pick<BridgeConfig, 'routes' | 'dm'>, msg: Where): Place {
  if (msg.direct) {
    if (config.dm) return { kind: 'dm', route: config.dm };
    const wide = matchRoute(config.routes.filter((r) => r.space === undefined && r.channel === undefined), msg);
    return wide ? { kind: 'route', route: wide } : { kind: 'default' };
  }
  const route = matchRoute(config.routes, msg);
  return route ? { kind: 'route', route } : { kind: 'default' };
}

/** Which profile serves the message, and what holds there (access is checked apart, in access.ts). */
export function routeMessage(config: BridgeConfig, msg: Where): Routed {
  return routeAt(config, placeOf(config, msg), msg.platform);
}

/**
 * Where a message goes once its conversation switched to `profile` (`use <name>`,
 * turns/use-profile.ts): its place's own route naming that profile instead, with the restrictions
 * of the routes naming that profile folded in as for any route, so a switch never loosens them.
 */
export function routeWithProfile(config: BridgeConfig, msg: Where, profile: string): Routed {
  const place = placeOf(config, msg);
  const switched: Place = place.kind === 'default' ? { kind: 'route', route: { profile } } : { kind: place.kind, route: { ...place.route, profile } };
  return routeAt(config, switched, msg.platform);
}

/* The profile a route names, loaded once. */

export type ProfileLoader = (path: string) => Promise<Profile>;

/** Loads each profile once and caches it by absolute path; a failed load is not cached (fix the file, retry). */
export function createProfileCache(load: ProfileLoader, logger: Logger): (path: string) => Promise<Profile> {
  const cache = new Map<string, Promise<Profile>>();
  return (path) => {
    const key = resolve(path);
    let p = cache.get(key);
    if (!p) {
      p = load(key);
      cache.set(key, p);
      p.then(
        (profile) => logger.info({ profile: key, command: profile.command, permission: profile.permission }, 'profile loaded'),
        () => cache.delete(key),
      );
    }
    return p;
  };
}
