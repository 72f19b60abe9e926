import type { UserRef } from '../delivery/surface.js';
import { onList, samePerson, type Actor } from './identity.js';

/** Who besides a turn's author may act on it. Lists are `platform:id` (bridge/identity.ts). */
export interface DecisionPolicy {
  /** TURNBRIDGE_APPROVERS / approvers: may decide any prompt and stop any turn. */
  approvers: readonly string[];
  /** TURNBRIDGE_ADMINS / access.admins: the same, and more (access, reset). */
  admins: readonly string[];
  /** The route's approvers_only: the author may not click Allow (Deny and Stop still). */
  approversOnly?: boolean;
}

export type DecisionAction = 'allow' | 'deny' | 'stop';

export function isApprover(actor: Actor, policy: DecisionPolicy): boolean {
  return onList(actor, policy.admins) || onList(actor, policy.approvers);
}

/**
 * The one check for clicks and `stop`: approvers and admins always; the turn's author (same
 * platform, same id) unless the route is approvers_only and the action is Allow.
 */
export function mayDecide(clicker: Actor, author: Actor, action: DecisionAction, policy: DecisionPolicy): boolean {
  if (isApprover(clicker, policy)) return true;
  if (!samePerson(clicker, author)) return false;
  return !(policy.approversOnly && action === 'allow');
}

/** Why a click was refused, naming the setting that would allow it. */
export function refusalText(author: UserRef, action: DecisionAction, policy: DecisionPolicy, self: boolean): string {
  if (self && policy.approversOnly && action === 'allow') {
    return 'Only approvers can allow tool use here (this route has approvers_only: true; approvers are TURNBRIDGE_APPROVERS / approvers). You can still Deny.';
  }
  const what = action === 'stop' ? 'stop this turn' : 'answer this request';
  return `Only ${mention(author)} or an approver can ${what} (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).`;
}

/** "@ana" for messages; the id when no name is known. */
export function mention(user: UserRef | undefined): string {
  if (!user) return 'someone';
  return `@${user.name ?? user.id}`;
}
