/**
 * What the state keeps per conversation (key = the conversation key), each read and write never
 * throwing (a store failure is logged and answers "none" / false):
 *
 * - its agent session (`session` namespace), through Keyv (keyv-records.ts). A failure reads as
 *   "no session", so the turn still runs (without one) and the reply is never lost. A record that
 *   is malformed, or whose id is not safe to hand back to an agent (protocol's resume rules),
 *   reads as none too.
 * - its reset mark, `session-reset:<conversation>` in the `kv` namespace (shared by every
 *   replica), through Keyv (Keyv's namespace `session-reset`). `new` / `reset` removes the
 *   session, then writes a fresh mark. A turn reads the mark before it reads its session and
 *   hands it back when the agent reports a session id: the id is saved only while the mark is
 *   unchanged. So a reset, on this replica or on another, keeps a turn that was already running
 *   from bringing the old session back. The orders matter: a turn that read the new mark read the
 *   session after the removal (it reads the mark first; the reset marks last), so it can never
 *   pair the old session with the new mark. A reset between its two reads only costs its fresh
 *   session's save, once. In this process a reset and a save (check + set) of one conversation
 *   run one at a time, so neither lands inside the other; across replicas the check and the set
 *   are two store calls, and a reset landing between them (within one round trip) is not seen.
 * - what its first accepted turn claims, in the commit that records it queued
 *   (`conversationWrites.authorClaim` / `noticeClaim`, set-if-absent: the first writer wins,
 *   across replicas too): its author (`platform:id`): `new` / `reset` is theirs (or an admin's)
 *   from the first message, not only once the agent has reported a session id (the session
 *   record keeps its own `author` too; older records have only that one), kept across `new`: a
 *   reset starts a fresh session, not a conversation someone else may take; and its once-only
 *   notices (the "runs tools without asking" banner): shown the first time, forgotten by `new` /
 *   `reset` so the next session shows it again.
 * - the profile it switched to with `use <name>` (`profile:<conversation>`), kept across `new`.
 *
 * Notices, authors and the profile choice live in the `kv` namespace (`notice:<notice>:<conversation>`,
 * `author:<conversation>`, `profile:<conversation>`), not through Keyv: authors and notices are
 * claims, and switching back removes the profile choice, where a failed removal must not read as
 * done (the person is told the switch was not saved), which Keyv's delete, false for both,
 * cannot tell apart.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { resumableSessionIdProblem } from '../protocol/index.js';
import { createKeyChains, type Guard } from './guard.js';
import { keyvRecords } from './keyv-records.js';
import type { SessionRecord } from './records.js';
import type { StateStore, StateWrite } from './store.js';

/* Its agent session. */

export interface Sessions {
  get(conversation: string): Promise<SessionRecord | undefined>;
  /** Resolves true once the store holds it (on disk, or acknowledged by Redis). */
  set(conversation: string, value: { sessionId: string; profile: string; author?: string }): Promise<boolean>;
  /** Forget the conversation's session (`new` / `reset`); true when there was one. */
  delete(conversation: string): Promise<boolean>;
}

export function sessionsOn(store: StateStore, guard: Guard, log: Logger, now: () => number): Sessions {
  const records = keyvRecords<SessionRecord>(store, guard, log, { ns: 'session', noun: 'session', what: 'the turn goes on without a stored session' });
  return {
    async get(key) {
      const v = await records.get(key);
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'object' || typeof v.session_id !== 'string' || v.session_id === '') {
        log.warn({ key }, 'session store: ignoring a malformed record');
        return undefined;
      }
      const problem = resumableSessionIdProblem(v.session_id);
      if (problem) {
        log.warn({ key, problem }, 'session store: ignoring a stored session id that is not safe to resume; the next turn starts a new session');
        return undefined;
      }
      return v;
    },
    set(key, value) {
      const record: SessionRecord = { session_id: value.sessionId, profile: value.profile, updated_at: now(), ...(value.author ? { author: value.author } : {}) };
      return records.set(key, record);
    },
    delete: (key) => records.delete(key),
  };
}

/* Its reset mark. */

export interface ResetMarks {
  /** The conversation's mark now ('' if it was never reset, or the store failed): read before its session. */
  current(conversation: string): Promise<string>;
  /** `new` / `reset`: `forget` (the session's removal), then a fresh mark, as one step here. */
  reset<T>(conversation: string, forget: () => Promise<T>): Promise<T>;
  /** `save` (a session read under `mark`) unless the conversation was reset since; false when it was. */
  saveUnlessReset(conversation: string, mark: string, save: () => Promise<unknown>): Promise<boolean>;
}

/** Longer than any turn can run (its timeout), so a running turn never outlives the mark it read. */
export const RESET_MARK_TTL_MS = 30 * 24 * 3600_000;

export function resetMarksOn(store: StateStore, guard: Guard, log: Logger): ResetMarks {
  const inTurn = createKeyChains();
  const marks = keyvRecords<unknown>(store, guard, log, { ns: 'kv', namespace: 'session-reset', noun: 'reset mark' });
  const current = async (c: string) => {
    const v = await marks.get(c);
    return typeof v === 'string' ? v : '';
  };
  return {
    current,
    reset: (c, forget) => inTurn(c, async () => {
      const forgotten = await forget();
      await marks.set(c, randomUUID(), RESET_MARK_TTL_MS);
      return forgotten;
    }),
    saveUnlessReset: (c, mark, save) => inTurn(c, async () => {
      if ((await current(c)) !== mark) return false;
      await save();
      return true;
    }),
  };
}

/* Its author, once-only notices and profile choice. */

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
