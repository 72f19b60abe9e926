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

/** "@ana" for messages; the id when no name is known. */
export function mention(user: UserRef | undefined): string {
  if (!user) return 'someone';
  return `@${user.name ?? user.id}`;
}
