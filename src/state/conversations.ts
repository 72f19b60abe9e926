/**
 * What a conversation's first accepted turn claims in the bridge state, in the commit that
 * records it queued (`writes.authorClaim` / `noticeClaim` below, set-if-absent: the first
 * writer wins, across replicas too), and what is read and forgotten here:
 *
 * - its author (`platform:id`): `new` / `reset` is theirs (or an admin's) from the first message,
 *   not only once the agent has reported a session id. The session record keeps its own `author`
 *   too (older records have only that one). Kept across `new`: a reset starts a fresh session,
 *   not a conversation someone else may take.
 * - once-only notices (the "runs tools without asking" banner): shown the first time, forgotten
 *   by `new` / `reset` so the next session shows it again.
 *
 * Notices and authors live in the `kv` namespace (`notice:<notice>:<conversation>`,
 * `author:<conversation>`). Reads never throw: a store failure is logged and answers "none".
 */
import type { Guard } from './guard.js';
import type { StateStore, StateWrite } from './store.js';

export interface Conversations {
  /** Who started the conversation (`platform:id`), once its first turn was accepted. */
  author(conversation: string): Promise<string | undefined>;
  /** Forget a once-only notice (`new` / `reset`): the next session shows it again. True when it was there. */
  forgetNotice(conversation: string, notice: string): Promise<boolean>;
}

const NS = 'kv';
const noticeKey = (conv: string, notice: string) => `notice:${notice}:${conv}`;
const authorKey = (conv: string) => `author:${conv}`;

/** The claims of a conversation's first accepted turn, as writes of its queued commit (state.write). */
export const conversationWrites = {
  /** A conversation's once-only notice (the auto-approve banner): claimed = first time. */
  noticeClaim: (conv: string, notice: string): StateWrite => ({ op: 'claim', ns: NS, key: noticeKey(conv, notice), value: true }),
  /** The conversation's author, unless it has one (the first accepted turn's writer wins). */
  authorClaim: (conv: string, author: string): StateWrite => ({ op: 'claim', ns: NS, key: authorKey(conv), value: author }),
};

export function conversationsOn(store: StateStore, guard: Guard): Conversations {
  return {
    async author(c) {
      const v = await guard.run('read author', c, () => store.get<unknown>(NS, authorKey(c)), undefined);
      return typeof v === 'string' && v ? v : undefined;
    },
    forgetNotice: (c, n) => guard.run('forget notice', c, () => store.delete(NS, noticeKey(c, n)), false),
  };
}
