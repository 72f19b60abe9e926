/**
 * The restrictions that hold where a profile is reached (docs/security.md, "Routes hold
 * everywhere"): pure functions of the configuration, used by its own checks (approvals-check.ts)
 * and by the bridge's routing of each message (bridge/access/routing.ts).
 *
 * A route's restrictions follow its profile: wherever a profile is reached (a DM, a channel no
 * route names, another channel's route), the restrictions written on any route naming that
 * profile apply too. Per field:
 * - allow_users / allow_channels: the route's own list when it has one; otherwise the union of
 *   the lists of the routes naming the profile (a route's `channel:` counts as one of its
 *   channels), so a person on none of them is refused;
 * - approvals: `approvers` when the bridge, the route or any route naming the profile says so;
 * - approvers / approver_groups: the route's own, otherwise those of the routes naming the profile;
 * - approval_timeout_secs: the shortest.
 */
import type { Approvals, BridgeConfig, RouteConfig } from './types.js';

/** Where a message came in: a route of `routes`, the `dm:` route, or none (the default profile). */
export type Place =
  | { kind: 'route'; route: RouteConfig }
  | { kind: 'dm'; route: RouteConfig }
  | { kind: 'default' };

export interface Routed {
  /**
   * The route as it holds here: the matched route's fields with the restrictions of every route
   * naming the same profile folded in (absent: no route matched and nothing restricts the profile).
   */
  route?: RouteConfig;
  profilePath: string;
}

/** Whether a route asks for an approver (`approvals: approvers`, or the older `approvers_only: true`). */
export function needsApprover(r: Pick<RouteConfig, 'approvals' | 'approversOnly'> | undefined): boolean {
  return r?.approvals === 'approvers' || r?.approversOnly === true;
}

/**
 * A route's list with bare ids made `platform:id` when the route names its platform, so they
 * keep counting on that platform only when carried elsewhere. A bare Discord id may be a user or
 * a role (snowflakes are unique across both), so it stands for both.
 */
export function qualifyIds(list: readonly string[], platform: string | undefined): string[] {
  if (!platform) return [...list];
  return list.flatMap((e) => (e.includes(':') ? [e] : platform === 'discord' ? [`discord:${e}`, `discord:role:${e}`] : [`${platform}:${e}`]));
}

const union = (lists: string[][]): string[] => [...new Set(lists.flat())];

/** The routes (and `dm:`) that name a profile. */
export function routesNaming(config: Pick<BridgeConfig, 'routes' | 'dm'>, profile: string): RouteConfig[] {
  return [...config.routes, ...(config.dm ? [config.dm] : [])].filter((r) => r.profile === profile);
}

/** The restrictions that hold where `place` reaches its profile (see the top of this file). */
export function routeAt(config: Pick<BridgeConfig, 'routes' | 'dm' | 'defaultProfile' | 'approvals'>, place: Place, platform: string): Routed {
  const own = place.kind === 'default' ? undefined : place.route;
  const profilePath = own?.profile ?? config.defaultProfile;
  const naming = routesNaming(config, profilePath);
  const out: RouteConfig = { ...own, profile: profilePath };
  delete out.approversOnly;

  const users = naming.filter((r) => r.allowUsers).map((r) => qualifyIds(r.allowUsers!, r.platform));
  if (own?.allowUsers) out.allowUsers = qualifyIds(own.allowUsers, own.platform);
  else if (users.length) out.allowUsers = union(users);

  // A DM has no channel of the lists; the `dm:` route naming the profile is what lets DMs in.
  const channelled = naming.filter((r) => r.allowChannels);
  if (!own?.allowChannels && channelled.length && place.kind !== 'dm') {
    out.allowChannels = union([...channelled.map((r) => r.allowChannels!), naming.flatMap((r) => (r.channel ? [r.channel] : []))]);
  }

  const approvals: Approvals = config.approvals === 'approvers' || naming.some(needsApprover) || needsApprover(own) ? 'approvers' : 'author';
  if (approvals === 'approvers' || own?.approvals) out.approvals = approvals;

  if (own?.approvers) out.approvers = qualifyIds(own.approvers, own.platform);
  else {
    const carried = naming.filter((r) => r.approvers).map((r) => qualifyIds(r.approvers!, r.platform));
    if (carried.length) out.approvers = union(carried);
  }
  if (!own?.approverGroups) {
    // Group ids are bare and count on the prompt's platform: only those of routes on this platform.
    const groups = naming.filter((r) => r.approverGroups && (r.platform === undefined || r.platform === platform)).map((r) => r.approverGroups!);
    if (groups.length) out.approverGroups = union(groups);
  }

  const timeouts = naming.flatMap((r) => (r.approvalTimeoutSecs !== undefined ? [r.approvalTimeoutSecs] : []));
  if (timeouts.length) out.approvalTimeoutSecs = Math.min(...timeouts);

  const restricted = out.allowUsers || out.allowChannels || out.approvals === 'approvers' || out.approvers || out.approverGroups || out.approvalTimeoutSecs !== undefined;
  return own || restricted ? { route: out, profilePath } : { profilePath };
}

