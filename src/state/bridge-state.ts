/**
 * The bridge's state, typed, on one StateStore: sessions, event dedupe, owned threads, the
 * per-conversation queues and the ledger. Platforms and the core use only this; the backend
 * (SQLite or Redis) is chosen once in createState().
 */
import type { LedgerRecord, QueuedTurnRecord, RerunRecord, SessionRecord } from './records.js';
import type { StateStore, StateWrite } from './store.js';

export interface BridgeState {
  readonly store: StateStore;
  readonly sessions: {
    get(key: string): Promise<SessionRecord | undefined>;
    set(key: string, record: SessionRecord): Promise<void>;
    delete(key: string): Promise<boolean>;
  };
  /**
   * Claim the keys of one message for `ttlMs` (its event id; Slack also its channel + ts, which
   * the twin event of a mention shares), all at once in one commit: true for exactly one caller
   * (across replicas) until they expire, and a caller that finds any key taken claims none.
   */
  claimEvent(ids: readonly string[], holder: string, ttlMs: number): Promise<boolean>;
  /** Whether some caller (any replica) holds the claim on `id` (claimEvent). */
  claimed(id: string): Promise<boolean>;
  /** Threads the bot answers without a new mention (it started or answered them). */
  readonly threads: {
    own(key: string, ttlMs: number): Promise<void>;
    owns(key: string): Promise<boolean>;
  };
  /** Per-conversation queues of accepted turns that have not started, in arrival order. */
  readonly queue: {
    push(conversationKey: string, record: QueuedTurnRecord): Promise<void>;
    list(conversationKey: string): Promise<QueuedTurnRecord[]>;
    remove(conversationKey: string, turnId: string): Promise<boolean>;
    /** Conversation keys with queued turns. */
    conversations(): Promise<string[]>;
  };
  readonly ledger: {
    put(record: LedgerRecord): Promise<void>;
    get(id: string): Promise<LedgerRecord | undefined>;
    remove(id: string): Promise<boolean>;
    all(): Promise<LedgerRecord[]>;
  };
  /**
   * The queue and ledger writes above, as values for `write`: a turn's bookkeeping that changes
   * both (queued: pushed and recorded; started; finished) goes in one commit, so a crash sees
   * all of it or none, and the turn pays one fsync instead of one per write.
   */
  readonly writes: {
    queuePush(conversationKey: string, record: QueuedTurnRecord): StateWrite;
    queueRemove(conversationKey: string, turnId: string): StateWrite;
    ledgerPut(record: LedgerRecord): StateWrite;
    ledgerRemove(id: string): StateWrite;
    threadOwn(key: string, ttlMs: number): StateWrite;
    /** A conversation's once-only notice (the auto-approve banner): claimed = first time. */
    noticeClaim(conversationKey: string, notice: string): StateWrite;
    /** The conversation's author, unless it has one (the first accepted turn's writer wins). */
    authorClaim(conversationKey: string, author: string): StateWrite;
  };
  /** Resolves one boolean per write: false for a claim that was already taken (StateStore.write). */
  write(writes: readonly StateWrite[]): Promise<boolean[]>;
  /** Notices and authors (writes.noticeClaim / authorClaim): read and forgotten here. */
  readonly conversations: {
    author(conversationKey: string): Promise<string | undefined>;
    forgetNotice(conversationKey: string, notice: string): Promise<boolean>;
  };
  /** Run again buttons of interrupted replies. */
  readonly reruns: {
    put(id: string, record: RerunRecord, ttlMs: number): Promise<void>;
    get(id: string): Promise<RerunRecord | undefined>;
    /** Use the button once: true for the first caller only. */
    take(id: string, ttlMs: number): Promise<boolean>;
    remove(id: string): Promise<boolean>;
  };
  close(): Promise<void>;
}

const QUEUE = 'queue:';
/**
 * Notices and authors live in the `kv` namespace under the keys the bridge's KvStore gave them
 * (`notice:<notice>:<conversation>`, `author:<conversation>`), so stores written before they were
 * typed here keep them.
 */
const CONV_NS = 'kv';
const noticeKey = (conv: string, notice: string) => `notice:${notice}:${conv}`;
const authorKey = (conv: string) => `author:${conv}`;

export function createBridgeState(store: StateStore): BridgeState {
  const writes: BridgeState['writes'] = {
    queuePush: (conv, record) => ({ op: 'push', list: QUEUE + conv, id: record.turnId, value: record }),
    queueRemove: (conv, turnId) => ({ op: 'removeItem', list: QUEUE + conv, id: turnId }),
    ledgerPut: (record) => ({ op: 'set', ns: 'ledger', key: record.id, value: record }),
    ledgerRemove: (id) => ({ op: 'delete', ns: 'ledger', key: id }),
    threadOwn: (key, ttlMs) => ({ op: 'set', ns: 'thread', key, value: 1, ttlMs }),
    noticeClaim: (conv, notice) => ({ op: 'claim', ns: CONV_NS, key: noticeKey(conv, notice), value: true }),
    authorClaim: (conv, author) => ({ op: 'claim', ns: CONV_NS, key: authorKey(conv), value: author }),
  };

  return {
    store,
    sessions: {
      get: (key) => store.get<SessionRecord>('session', key),
      set: (key, record) => store.set('session', key, record),
      delete: (key) => store.delete('session', key),
    },
    claimEvent: (ids, holder, ttlMs) => store.setIfNoneExist('event', ids, { holder }, ttlMs),
    claimed: async (id) => (await store.get('event', id)) !== undefined,
    threads: {
      own: async (key, ttlMs) => void (await store.write([writes.threadOwn(key, ttlMs)])),
      owns: async (key) => (await store.get('thread', key)) !== undefined,
    },
    queue: {
      push: async (conv, record) => void (await store.write([writes.queuePush(conv, record)])),
      list: async (conv) => (await store.items<QueuedTurnRecord>(QUEUE + conv)).map((i) => i.value),
      remove: (conv, turnId) => store.removeItem(QUEUE + conv, turnId), // answers whether it was there
      conversations: async () => (await store.lists()).filter((l) => l.startsWith(QUEUE)).map((l) => l.slice(QUEUE.length)),
    },
    ledger: {
      put: async (record) => void (await store.write([writes.ledgerPut(record)])),
      get: (id) => store.get<LedgerRecord>('ledger', id),
      remove: (id) => store.delete('ledger', id),
      all: async () => (await store.entries<LedgerRecord>('ledger')).map((e) => e.value),
    },
    writes,
    write: (writes) => store.write(writes),
    conversations: {
      author: async (conv) => {
        const v = await store.get<unknown>(CONV_NS, authorKey(conv));
        return typeof v === 'string' && v ? v : undefined;
      },
      forgetNotice: (conv, notice) => store.delete(CONV_NS, noticeKey(conv, notice)),
    },
    reruns: {
      put: (id, record, ttlMs) => store.set('rerun', id, record, ttlMs),
      get: (id) => store.get<RerunRecord>('rerun', id),
      take: (id, ttlMs) => store.setIfNotExists('rerun-used', id, 1, ttlMs),
      remove: (id) => store.delete('rerun', id),
    },
    close: () => store.close(),
  };
}
