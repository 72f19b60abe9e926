/**
 * A conversation's reset mark, `session-reset:<conversation>` in the `kv` namespace (shared by
 * every replica), through Keyv (keyv-records.ts; Keyv's namespace `session-reset`). `new` /
 * `reset` removes the session, then writes a fresh mark.
 * A turn reads the mark before it reads its session and hands it back when the agent reports a
 * session id: the id is saved only while the mark is unchanged. So a reset, on this replica or
 * on another, keeps a turn that was already running from bringing the old session back.
 *
 * The orders matter: a turn that read the new mark read the session after the removal (it reads
 * the mark first; the reset marks last), so it can never pair the old session with the new
 * mark. A reset between its two reads only costs its fresh session's save, once. In this process
 * a reset and a save (check + set) of one conversation run one at a time, so neither lands inside
 * the other; across replicas the check and the set are two store calls, and a reset landing
 * between them (within one round trip) is not seen.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { createKeyChains, type Guard } from './guard.js';
import { keyvRecords } from './keyv-records.js';
import type { StateStore } from './store.js';

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
