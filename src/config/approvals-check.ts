/**
 * `approvals: approvers` needs someone who can approve: a start-up error names the setting that
 * asks for an approver where nobody could be one (every Allow there would be refused until the
 * prompt times out).
 */
import type { BridgeConfig, RouteConfig } from './types.js';
import { needsApprover, routeAt, routesNaming, type Place } from './route-rules.js';
import { TurnbridgeError } from '../errors.js';

type Checked = Pick<BridgeConfig, 'routes' | 'dm' | 'defaultProfile' | 'approvals' | 'approvers' | 'file'> & { access: { admins: readonly string[] } };

/** Where `approvals` came from: the environment wins over the file. */
export interface ApprovalsSource {
  /** TURNBRIDGE_APPROVALS was set. */
  fromEnv: boolean;
}

function fieldOf(config: Checked, r: RouteConfig): string {
  if (r === config.dm) return r.approvals ? 'dm.approvals' : 'dm.approvers_only';
  const i = config.routes.indexOf(r);
  return r.approvals ? `routes[${i}].approvals` : `routes[${i}].approvers_only`;
}

/** A route of the config asking for an approver, or the bridge-wide setting, for the error. */
function askedBy(config: Checked, place: Place, source: ApprovalsSource): string {
  if (config.approvals === 'approvers') return source.fromEnv ? 'TURNBRIDGE_APPROVALS' : 'approvals';
  const own = place.kind === 'default' ? undefined : place.route;
  if (own && needsApprover(own)) return fieldOf(config, own);
  const carrier = routesNaming(config, own?.profile ?? config.defaultProfile).find(needsApprover);
  return carrier ? fieldOf(config, carrier) : 'approvals';
}

function placeName(config: Checked, place: Place): string {
  if (place.kind === 'default') return 'channels and DMs that no route names';
  if (place.kind === 'dm') return 'direct messages (dm:)';
  return `routes[${config.routes.indexOf(place.route)}]`;
}

export function checkApprovers(config: Checked, source: ApprovalsSource): void {
  if (config.approvers.length > 0 || config.access.admins.length > 0) return;
  const places: Place[] = config.routes.map((route) => ({ kind: 'route', route }));
  if (config.dm) places.push({ kind: 'dm', route: config.dm });
  if (!config.routes.some((r) => r.platform === undefined && r.space === undefined && r.channel === undefined)) places.push({ kind: 'default' });
  for (const place of places) {
    const route = routeAt(config, place, (place.kind === 'route' && place.route.platform) || '').route;
    if (route?.approvals !== 'approvers') continue;
    if ((route.approvers ?? []).length > 0 || (route.approverGroups ?? []).length > 0) continue;
    // Groups count on their route's platform only; one that may be the message's counts here.
    if (routesNaming(config, route.profile).some((r) => (r.approverGroups ?? []).length > 0)) continue;
    const field = askedBy(config, place, source);
    const inFile = !field.startsWith('TURNBRIDGE_') && config.file;
    throw new TurnbridgeError('TB_CONFIG_INVALID', `${inFile ? `${config.file}: ` : ''}${field}: approvals: approvers, but nobody can approve (${placeName(config, place)}): every Allow there would be refused`, {
      ...(inFile ? { file: config.file } : {}),
      field,
      found: 'approvers',
      expected: 'at least one approver or admin',
      hint: 'name approvers: TURNBRIDGE_APPROVERS / approvers: [slack:U0123] (or a route\'s approvers / approver_groups), or admins (TURNBRIDGE_ADMINS); or set approvals: author',
    });
  }
}
