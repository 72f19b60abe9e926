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
 * - the profile it switched to with `use <name>` (`profile:<conversation>`), kept across `new`.
 *
 * Notices and authors live in the `kv` namespace (`notice:<notice>:<conversation>`,
 * `author:<conversation>`). Reads never throw: a store failure is logged and answers "none".
 * None of them goes through Keyv (keyv-records.ts): authors and notices are claims, and switching
 * back removes the profile choice, where a failed removal must not read as done (the person is
 * told the switch was not saved), which Keyv's delete, false for both, cannot tell apart.
 */
import type { Guard } from './guard.js';
import type { StateStore, StateWrite } from './store.js';

/** The profile a conversation switched to with `use <name>` (bridge/turns/use-profile.ts). */
export interface ProfileChoice {
  /** The profile file its next turns use. */
  path: string;
  /** What it used before the switch (absent: its route's own profile): an approved plan goes back to it. */
  previous?: string;
  /** Who switched (`platform:id`), and when (ms). */
  by: string;
  at: number;
}

export interface Conversations {
  /** Who started the conversation (`platform:id`), once its first turn was accepted. */
  author(conversation: string): Promise<string | undefined>;
  /** The profile the conversation switched to, if any (a malformed record reads as none). */
  profile(conversation: string): Promise<ProfileChoice | undefined>;
  /** Switch its profile (undefined: back to its route's own). True once stored. */
  useProfile(conversation: string, choice: ProfileChoice | undefined): Promise<boolean>;
  /** Forget a once-only notice (`new` / `reset`): the next session shows it again. True when it was there. */
  forgetNotice(conversation: string, notice: string): Promise<boolean>;
}

const NS = 'kv';
const noticeKey = (conv: string, notice: string) => `notice:${notice}:${conv}`;
const authorKey = (conv: string) => `author:${conv}`;
const profileKey = (conv: string) => `profile:${conv}`;

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
    async profile(c) {
      const v = await guard.run('read profile choice', c, () => store.get<Partial<ProfileChoice>>(NS, profileKey(c)), undefined);
      if (!v || typeof v.path !== 'string' || v.path === '' || typeof v.by !== 'string' || typeof v.at !== 'number') return undefined;
      return { path: v.path, ...(typeof v.previous === 'string' ? { previous: v.previous } : {}), by: v.by, at: v.at };
    },
    useProfile: (c, choice) => guard.run('use profile', c, async () => {
      if (choice) await store.set(NS, profileKey(c), choice);
      else await store.delete(NS, profileKey(c));
      return true;
    }, false),
  };
}
