/**
 * What a conversation's first accepted turn claims in the bridge state, in the commit that
 * records it queued (BridgeState.writes.authorClaim / noticeClaim, set-if-absent: the first
 * writer wins, across replicas too), and what is read and forgotten here:
 *
 * - its author (`platform:id`): `new` / `reset` is theirs (or an admin's) from the first message,
 *   not only once the agent has reported a session id. The session record keeps its own `author`
 *   too (older records have only that one). Kept across `new`: a reset starts a fresh session,
 *   not a conversation someone else may take.
 * - once-only notices (the "runs tools without asking" banner): shown the first time, forgotten
 *   by `new` / `reset` so the next session shows it again.
 *
 * Reads never throw: a store failure is logged (`guarded`) and answers "none".
 */
import type { BridgeState } from './bridge-state.js';
import type { GuardedOps } from './kv.js';

export interface ConversationAuthors {
  get(conversation: string): Promise<string | undefined>;
}

export interface ConversationNotices {
  forget(conversation: string, notice: string): Promise<void>;
}

export function createConversationAuthors(state: BridgeState, guarded: GuardedOps['run']): ConversationAuthors {
  return { get: (c) => guarded('read author', c, () => state.conversations.author(c), undefined) };
}

export function createConversationNotices(state: BridgeState, guarded: GuardedOps['run']): ConversationNotices {
  return {
    async forget(c, n) {
      await guarded('forget notice', c, () => state.conversations.forgetNotice(c, n), false);
    },
  };
}
