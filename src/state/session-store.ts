import type { Conversation } from '../delivery/surface.js';
import type { Logger } from '../log.js';
import type { BridgeState } from './bridge-state.js';
import type { SessionRecord } from './records.js';
import { conversationKey } from './conversation-key.js';
import { resumableSessionIdProblem } from '../protocol/index.js';
import { createGuardedOps } from './kv.js';

export type { SessionRecord };

/**
 * Sessions per conversation, on the bridge state (SQLite or Redis). Never throws: a store failure
 * is logged and reads as "no session", so the turn still runs (without a session) and the reply
 * is never lost.
 */
export interface SessionStore {
  get(conversation: Conversation, platform: string): Promise<SessionRecord | undefined>;
  /** Resolves true once the store holds the value (on disk, or acknowledged by Redis). */
  set(conversation: Conversation, platform: string, value: { sessionId: string; profile: string; author?: string }): Promise<boolean>;
  /** Forget the conversation's session (`new` / `reset`). */
  delete(conversation: Conversation, platform: string): Promise<boolean>;
  /** Wait for operations in flight (the state itself is closed by its owner). */
  close(): Promise<void>;
}

export interface SessionStoreOptions {
  /** A store operation slower than this counts as failed (default 3000 ms). */
  opTimeoutMs?: number;
  now?: () => number;
}

export function createSessionStore(state: BridgeState, logger: Logger, opts: SessionStoreOptions = {}): SessionStore {
  const log = logger.child({ component: 'session-store' });
  const now = opts.now ?? Date.now;
  const ops = createGuardedOps(log, opts.opTimeoutMs ?? 3000, 'the turn goes on without a stored session');
  const guarded = ops.run;
  return {
    async get(conversation, platform) {
      const key = conversationKey(platform, conversation);
      const v = await guarded('get', key, () => state.sessions.get(key), undefined);
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
    async set(conversation, platform, value) {
      const key = conversationKey(platform, conversation);
      const record: SessionRecord = { session_id: value.sessionId, profile: value.profile, updated_at: now(), ...(value.author ? { author: value.author } : {}) };
      return guarded('set', key, async () => {
        await state.sessions.set(key, record);
        return true;
      }, false);
    },
    async delete(conversation, platform) {
      const key = conversationKey(platform, conversation);
      return guarded('delete', key, () => state.sessions.delete(key), false);
    },
    close: () => ops.drain(),
  };
}

/** Wrap any SessionStore so that a rejecting operation is logged and reads as "no session" (injected stores). */
export function guardSessionStore(store: SessionStore, logger: Logger): SessionStore {
  const ops = createGuardedOps(logger, undefined, 'the turn goes on without a stored session');
  return {
    get: (c, p) => ops.run('get', conversationKey(p, c), () => store.get(c, p), undefined),
    set: (c, p, v) => ops.run('set', conversationKey(p, c), () => store.set(c, p, v), false),
    delete: (c, p) => ops.run('delete', conversationKey(p, c), () => store.delete(c, p), false),
    close: () => ops.run('close', '', () => store.close(), undefined),
  };
}
