import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Keyv from 'keyv';
import { KeyvFile } from 'keyv-file';
import KeyvRedis from '@keyv/redis';
import type { Conversation } from '../delivery/surface.js';
import type { Logger } from '../log.js';
import type { BridgeConfig } from './api.js';
import { conversationKey } from './conversation-key.js';
import { resumableSessionIdProblem } from '../protocol/index.js';
import { createGuardedOps } from './kv.js';

/** What is kept per conversation. */
export interface SessionRecord {
  session_id: string;
  /** Absolute path of the profile that minted the session. */
  profile: string;
  /** ms since the epoch. */
  updated_at: number;
  /** `platform:id` of who started the conversation: `new` / `reset` is theirs (or an admin's). */
  author?: string;
}

/**
 * Sessions per conversation. Never throws: a store failure is logged and reads as "no session",
 * so the turn still runs (without a session) and the reply is never lost.
 */
export interface SessionStore {
  get(conversation: Conversation, platform: string): Promise<SessionRecord | undefined>;
  /** Resolves true when the store accepted the value. */
  set(conversation: Conversation, platform: string, value: { sessionId: string; profile: string; author?: string }): Promise<boolean>;
  /** Forget the conversation's session (`new` / `reset`). */
  delete(conversation: Conversation, platform: string): Promise<boolean>;
  /** Flush pending writes and disconnect. */
  close(): Promise<void>;
}

export interface SessionStoreOptions {
  /** Use this Keyv instead of building one from the config (tests, custom backends). */
  keyv?: Keyv;
  /** A store operation slower than this counts as failed (default 3000 ms). */
  opTimeoutMs?: number;
  now?: () => number;
  /** keyv-file batching delay (default 100 ms). */
  writeDelayMs?: number;
}

/** The bridge's keyv: Redis when REDIS_URL is set, else the embedded file store in data_dir. */
export function buildKeyv(config: BridgeConfig, logger: Logger, writeDelay: number): Keyv {
  if (config.redisUrl) {
    logger.info('session store: redis');
    const store = new KeyvRedis(config.redisUrl, { throwOnConnectError: false, connectionTimeout: 3000 });
    return new Keyv({ store, namespace: 'turnbridge:sessions', useKeyPrefix: false });
  }
  mkdirSync(config.dataDir, { recursive: true });
  const filename = join(config.dataDir, 'sessions.json');
  logger.info({ file: filename }, 'session store: embedded file');
  return new Keyv({ store: new KeyvFile({ filename, writeDelay }), namespace: 'sessions' });
}

export function createSessionStore(config: BridgeConfig, logger: Logger, opts: SessionStoreOptions = {}): SessionStore {
  const log = logger.child({ component: 'session-store' });
  const keyv = opts.keyv ?? buildKeyv(config, log, opts.writeDelayMs ?? 100);
  const timeoutMs = opts.opTimeoutMs ?? 3000;
  const now = opts.now ?? Date.now;
  const ops = createGuardedOps(log, timeoutMs, 'the turn goes on without a stored session');
  keyv.on('error', (err: unknown) => log.error({ err }, 'session store error'));
  const guarded = ops.run;

  return {
    async get(conversation, platform) {
      const key = conversationKey(platform, conversation);
      const v = await guarded('get', key, () => keyv.get<SessionRecord>(key), undefined);
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
      return guarded('set', key, () => keyv.set(key, record), false);
    },
    async delete(conversation, platform) {
      const key = conversationKey(platform, conversation);
      return guarded('delete', key, () => keyv.delete(key), false);
    },
    async close() {
      await ops.drain();
      try {
        await keyv.disconnect();
      } catch (err) {
        log.warn({ err }, 'session store: disconnect failed');
      }
    },
  };
}

/** Wrap any SessionStore so that a rejecting operation is logged and reads as "no session" (injected stores). */
export function guardSessionStore(store: SessionStore, logger: Logger): SessionStore {
  const safe = async <T>(op: string, fn: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      logger.error({ err, op }, 'session store failed; the turn goes on without a stored session');
      return fallback;
    }
  };
  return {
    get: (c, p) => safe('get', () => store.get(c, p), undefined),
    set: (c, p, v) => safe('set', () => store.set(c, p, v), false),
    delete: (c, p) => safe('delete', () => store.delete(c, p), false),
    close: () => safe('close', () => store.close(), undefined),
  };
}
