/**
 * The agent session kept per conversation (`session` namespace, key = the conversation key),
 * through Keyv (keyv-records.ts). Never throws: a store failure is logged and reads as "no
 * session", so the turn still runs (without one) and the reply is never lost. A record that is
 * malformed, or whose id is not safe to hand back to an agent (protocol's resume rules), reads as
 * none too.
 */
import type { Logger } from '../log.js';
import { resumableSessionIdProblem } from '../protocol/index.js';
import type { Guard } from './guard.js';
import { keyvRecords } from './keyv-records.js';
import type { SessionRecord } from './records.js';
import type { StateStore } from './store.js';

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
