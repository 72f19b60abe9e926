import type { UserRef } from '../../chat.js';
import type { Approvals, BridgeConfig, RouteConfig } from '../../config/types.js';
import { onList, samePerson, type Actor } from '../access/index.js';

export type DecisionAction = 'allow' | 'deny' | 'stop';

/**
 * Who besides a turn's author may act on it. Bridge-wide lists are `platform:id`
 * (bridge/access/access.ts); a route's lists may be bare ids, which count only on the route's own
 * platform (the prompt's).
 */
export interface ApproverPolicy {
  /** The bridge's `approvers` plus the route's (user ids, Discord role ids). */
  users: readonly string[];
  /** The route's `approver_groups`: Slack user group (subteam) ids, Discord role ids. */
  groups: readonly string[];
  /** TURNBRIDGE_ADMINS / access.admins: decide anything. */
  admins?: readonly string[];
  /**
   * approvers (the bridge's or the route's `approvals`, or approvers_only): the author's own Allow
   * is refused, whoever they are (an approver or admin too: another person must allow); Deny,
   * Stop and Show full input stay theirs. Absent: author.
   */
  approvals?: Approvals;
}

/** Who may decide on a turn served by `route` (the route as routing.ts folded it). */
export function policyFor(config: Pick<BridgeConfig, 'approvers' | 'approvals'> & { access: { admins: readonly string[] } }, route: RouteConfig | undefined): ApproverPolicy {
  return {
    users: [...config.approvers, ...(route?.approvers ?? [])],
    groups: route?.approverGroups ?? [],
    admins: config.access.admins,
    approvals: route?.approvals ?? config.approvals ?? 'author',
  };
}

/**
 * The approvers to show on a prompt of `platform`: bare ids, and `platform:id` entries of that
 * platform without their prefix (an entry of another platform cannot decide there).
 */
export function decidersOn(policy: ApproverPolicy, platform: string): string[] {
  const prefix = `${platform}:`;
  const out = policy.users.flatMap((u) => (!u.includes(':') ? [u] : u.startsWith(prefix) && !u.startsWith(`${prefix}role:`) ? [u.slice(prefix.length)] : []));
  return [...new Set(out)];
}

/** On a list: a `platform:id` entry for any of the person's identities, or a bare id on the prompt's platform. */
function listed(clicker: Actor, onPlatform: string, list: readonly string[]): boolean {
  if (onList(clicker, list)) return true;
  if (clicker.platform !== onPlatform) return false;
  const bare = [clicker.user.id, ...(clicker.user.roles ?? [])];
  return list.some((e) => !e.includes(':') && bare.includes(e));
}

/** An approver or admin of this policy (no group lookup). */
function isApprover(clicker: Actor, author: Actor, policy: ApproverPolicy): boolean {
  return onList(clicker, policy.admins ?? []) || listed(clicker, author.platform, policy.users)
    || (clicker.platform === author.platform && (clicker.user.roles ?? []).some((r) => policy.groups.includes(r)));
}

/**
 * The one check for clicks, forms and `stop`, compared as (platform, id): with approvals:
 * approvers the author's Allow never counts (four eyes, even for an approver or admin); else
 * admins and approvers always; approver groups (roles, or Slack user groups through
 * `groupMembers`, looked up by the platform; a failed lookup is "not a member") on the prompt's
 * platform; the author.
 */
export async function mayDecide(
  clicker: Actor,
  author: Actor,
  action: DecisionAction,
  policy: ApproverPolicy,
  groupMembers?: (groupId: string) => Promise<readonly string[]>,
): Promise<boolean> {
  if (policy.approvals === 'approvers' && action === 'allow' && samePerson(clicker, author)) return false;
  if (isApprover(clicker, author, policy)) return true;
  if (clicker.platform === author.platform && groupMembers) {
    for (const g of policy.groups) {
      const members = await groupMembers(g).catch(() => [] as readonly string[]);
      if (members.includes(clicker.user.id)) return true;
    }
  }
  return samePerson(clicker, author);
}

/** The synchronous form for Stop (no group lookup). */
export function mayStop(clicker: Actor, author: Actor, policy: ApproverPolicy): boolean {
  return isApprover(clicker, author, policy) || samePerson(clicker, author);
}

/** Why a click was refused, naming the setting that would allow it. */
export function refusalText(author: UserRef, action: DecisionAction, policy: ApproverPolicy, self: boolean): string {
  if (self && policy.approvals === 'approvers' && action === 'allow') {
    return 'An approver must allow this: you started this turn, and here your own Allow does not count (approvals: approvers, or a route\'s approvers_only: true, in turnbridge.yaml / TURNBRIDGE_APPROVALS; approvers are TURNBRIDGE_APPROVERS / approvers, or the route\'s approvers). You can still Deny or Stop.';
  }
  const what = action === 'stop' ? 'stop this turn' : 'answer this request';
  return `Only ${mention(author)} or an approver can ${what} (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).`;
}

/** "@ana" for messages; the id when no name is known. */
export function mention(user: UserRef | undefined): string {
  if (!user) return 'someone';
  return `@${user.name ?? user.id}`;
}
