/**
 * Routes: a route's restrictions follow its profile (bridge/access/routing.ts), so a profile restricted
 * on one route and reached elsewhere (a DM, a channel no route names, another channel's route)
 * is restricted there too without it being written there. Each such place is a warning that
 * says what holds there and what to write to make it explicit, or how to give it its own profile.
 */
import type { BridgeConfig, RouteConfig } from '../config/types.js';
import { needsApprover, qualifyIds, routesNaming } from '../config/route-rules.js';
import { shortPath } from './profile-checks.js';
import { pass, warn, type CheckResult } from '../check-result.js';

const S = 'Routes';

interface Reach {
  /** How the place is named in the line: `routes[2]`, `dm:`, "channels no route names". */
  name: string;
  /** What is written there (undefined: nothing, the default profile). */
  route?: RouteConfig;
  /** What to edit to write it there. */
  where: string;
}

/** The places that reach `profile`. */
function reaches(config: BridgeConfig, profile: string): Reach[] {
  const out: Reach[] = config.routes.flatMap((r, i) => (r.profile === profile ? [{ name: `routes[${i}]`, route: r, where: `routes[${i}]` }] : []));
  if (config.dm?.profile === profile) out.push({ name: 'dm:', route: config.dm, where: 'dm:' });
  // A route naming only its platform also serves that platform's DMs when there is no dm: route.
  const catchAll = config.routes.some((r) => r.platform === undefined && r.space === undefined && r.channel === undefined);
  if (profile === config.defaultProfile && !catchAll) {
    out.push({
      name: `channels${config.dm ? '' : ' and DMs'} no route names (default_profile)`,
      where: `a catch-all route \`- profile: ${shortPath(profile)}\` (and a dm: route), or point default_profile at another profile`,
    });
  }
  return out;
}

/** The restrictions some route naming the profile writes and this place does not. */
function missing(config: BridgeConfig, naming: RouteConfig[], at: Reach): string[] {
  const out: string[] = [];
  const own = at.route;
  const users = [...new Set(naming.flatMap((r) => qualifyIds(r.allowUsers ?? [], r.platform)))];
  if (users.length && !own?.allowUsers) out.push(`allow_users: [${users.join(', ')}]`);
  const channels = [...new Set(naming.flatMap((r) => r.allowChannels ?? []))];
  if (channels.length && !own?.allowChannels && own !== config.dm) out.push(`allow_channels: [${channels.join(', ')}]`);
  if (config.approvals !== 'approvers' && naming.some(needsApprover) && !needsApprover(own)) out.push('approvals: approvers');
  return out;
}

export function routeChecks(config: BridgeConfig): CheckResult[] {
  const out: CheckResult[] = [];
  const profiles = [...new Set([...config.routes.map((r) => r.profile), ...(config.dm ? [config.dm.profile] : [])])];
  let restricted = 0;
  for (const profile of profiles) {
    const naming = routesNaming(config, profile);
    const restricting = naming.filter((r) => r.allowUsers || r.allowChannels || needsApprover(r));
    if (!restricting.length) continue;
    restricted++;
    const by = restricting.map((r) => (r === config.dm ? 'dm:' : `routes[${config.routes.indexOf(r)}]`)).join(', ');
    for (const at of reaches(config, profile)) {
      const lack = missing(config, naming, at);
      if (!lack.length) continue;
      out.push(warn(S, `${shortPath(profile)} is restricted on ${by} but also reached through ${at.name} without ${lack.join(', ')}: the bridge applies them there too`,
        `to make it explicit, write ${lack.join(', ')} on ${at.where}; or give ${by} a profile of its own`));
    }
  }
  if (!out.length) out.push(pass(S, restricted ? `every place that reaches a restricted profile writes its restrictions (${restricted} restricted)` : 'no route restricts its profile'));
  return [...out, ...promptsNeverShown(config)];
}

/**
 * Slack shows suggested prompts only in an agent app's DM (platforms/slack/agent-events.ts), and a
 * DM takes the dm: route, else a route naming neither space nor channel (access/routing.ts): on any
 * other route, or a route of another platform, `suggested_prompts` is never seen.
 */
function promptsNeverShown(config: BridgeConfig): CheckResult[] {
  const slack = (r: RouteConfig) => r.platform === undefined || r.platform === 'slack';
  const dmTakes = (r: RouteConfig) => slack(r) && (config.dm ? r === config.dm : r.space === undefined && r.channel === undefined);
  return [...config.routes.map((r, i) => [r, `routes[${i}]`] as const), ...(config.dm ? [[config.dm, 'dm:'] as const] : [])]
    .filter(([r]) => r.suggestedPrompts && !dmTakes(r))
    .map(([, name]) => warn(S, `${name} sets suggested_prompts, which no one will see: Slack shows them only in the app's DMs, and no Slack DM reaches ${name}`,
      `move them to ${config.dm ? 'dm:' : 'a dm: route or a Slack route naming no channel'}, or remove them`));
}
