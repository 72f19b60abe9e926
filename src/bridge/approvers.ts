import type { UserRef } from '../delivery/surface.js';

/** The turn's author, or an approver by user id or by any of the user's role ids. */
export function mayDecide(user: UserRef, author: UserRef, approvers: readonly string[]): boolean {
  if (user.id === author.id) return true;
  return isApprover(user, approvers);
}

export function isApprover(user: UserRef, approvers: readonly string[]): boolean {
  if (approvers.includes(user.id)) return true;
  return (user.roles ?? []).some((r) => approvers.includes(r));
}

/** Who may answer a route's prompts besides the author: user ids (or role ids) and groups. */
export interface ApproverPolicy {
  /** The bridge's `approvers` plus the route's. */
  users: readonly string[];
  /** The route's `approver_groups`: Slack user group (subteam) ids, Discord role ids. */
  groups: readonly string[];
}

/**
 * mayDecide, plus approver groups: a group matches through the user's roles (Discord) or through
 * `groupMembers` (Slack user groups, looked up by the platform). A failed lookup counts as "not a member".
 */
export async function mayDecideWithGroups(
  user: UserRef,
  author: UserRef,
  policy: ApproverPolicy,
  groupMembers?: (groupId: string) => Promise<readonly string[]>,
): Promise<boolean> {
  if (mayDecide(user, author, policy.users)) return true;
  if (policy.groups.length === 0) return false;
  if ((user.roles ?? []).some((r) => policy.groups.includes(r))) return true;
  if (!groupMembers) return false;
  for (const g of policy.groups) {
    const members = await groupMembers(g).catch(() => [] as readonly string[]);
    if (members.includes(user.id)) return true;
  }
  return false;
}

/** "@ana" for messages; the id when no name is known. */
export function mention(user: UserRef | undefined): string {
  if (!user) return 'someone';
  return `@${user.name ?? user.id}`;
}
