/**
 * Who started each conversation (`platform:id`), kept in the bridge's store under
 * `author:<conversation>` from the moment its first turn is accepted: `new` / `reset` is theirs
 * (or an admin's) from the first message, not only once the agent has reported a session id.
 * The session record keeps its own `author` too (older records have only that one).
 * Kept across `new`: a reset starts a fresh session, not a conversation someone else may take.
 */
import type { KvStore } from './kv.js';

export interface ConversationAuthors {
  /** Records `author` unless the conversation has one; resolves the recorded author. */
  claim(conversation: string, author: string): Promise<string>;
  get(conversation: string): Promise<string | undefined>;
}

const authorKey = (c: string) => `author:${c}`;

export function createConversationAuthors(kv: KvStore): ConversationAuthors {
  // Two first messages at once in this process: the first accepted claims it (the chain makes
  // get-then-set one step here; replicas on Redis may race, and then the later write wins).
  const chains = new Map<string, Promise<string>>();
  const get = async (c: string) => {
    const v = await kv.get<unknown>(authorKey(c));
    return typeof v === 'string' && v ? v : undefined;
  };
  return {
    get,
    claim(c, author) {
      const step = async () => {
        const had = await get(c);
        if (had) return had;
        await kv.set(authorKey(c), author);
        return author;
      };
      const next = (chains.get(c) ?? Promise.resolve('')).then(step, step);
      chains.set(c, next);
      void next.finally(() => { if (chains.get(c) === next) chains.delete(c); });
      return next;
    },
  };
}
