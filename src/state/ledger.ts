/**
 * The ledger (namespace `ledger`, key = the record's id): everything the bridge has shown and not
 * yet finished (live replies, posted prompts, running agents), and the per-conversation queues of
 * accepted turns that have not started (lists `queue:<conversation>`, in arrival order). A restart
 * after a crash, or a replica taking over, finishes what it finds here (bridge/turns/recovery.ts).
 * Reads and writes never throw: a store failure is logged and answers none / false.
 */
import type { Guard } from './guard.js';
import type { LedgerRecord, QueuedTurnRecord } from './records.js';
import type { StateStore, StateWrite } from './store.js';

export interface Ledger {
  put(record: LedgerRecord): Promise<void>;
  get(id: string): Promise<LedgerRecord | undefined>;
  remove(id: string): Promise<boolean>;
  all(): Promise<LedgerRecord[]>;
}

/** Per-conversation queues of accepted turns that have not started, in arrival order. */
export interface Queue {
  push(conversationKey: string, record: QueuedTurnRecord): Promise<void>;
  list(conversationKey: string): Promise<QueuedTurnRecord[]>;
  remove(conversationKey: string, turnId: string): Promise<boolean>;
  /** Conversation keys with queued turns. */
  conversations(): Promise<string[]>;
}

const QUEUE = 'queue:';
const NS = 'ledger';

/** The queue and ledger writes, as values for state.write (a turn's bookkeeping in one commit). */
export const ledgerWrites = {
  queuePush: (conv: string, record: QueuedTurnRecord): StateWrite => ({ op: 'push', list: QUEUE + conv, id: record.turnId, value: record }),
  queueRemove: (conv: string, turnId: string): StateWrite => ({ op: 'removeItem', list: QUEUE + conv, id: turnId }),
  ledgerPut: (record: LedgerRecord): StateWrite => ({ op: 'set', ns: NS, key: record.id, value: record }),
  ledgerRemove: (id: string): StateWrite => ({ op: 'delete', ns: NS, key: id }),
};

export function ledgerOn(store: StateStore, guard: Guard): Ledger {
  return {
    put: (record) => guard.run('record', record.id, async () => void (await store.write([ledgerWrites.ledgerPut(record)])), undefined),
    get: (id) => guard.run('read record', id, () => store.get<LedgerRecord>(NS, id), undefined),
    remove: (id) => guard.run('forget record', id, () => store.delete(NS, id), false),
    all: () => guard.run('read ledger', 'all', async () => (await store.entries<LedgerRecord>(NS)).map((e) => e.value), []),
  };
}

export function queueOn(store: StateStore, guard: Guard): Queue {
  return {
    push: (conv, record) => guard.run('queue', conv, async () => void (await store.write([ledgerWrites.queuePush(conv, record)])), undefined),
    list: (conv) => guard.run('read queue', conv, async () => (await store.items<QueuedTurnRecord>(QUEUE + conv)).map((i) => i.value), []),
    remove: (conv, turnId) => guard.run('unqueue', conv, () => store.removeItem(QUEUE + conv, turnId), false),
    conversations: () => guard.run('read queues', 'all', async () => (await store.lists()).filter((l) => l.startsWith(QUEUE)).map((l) => l.slice(QUEUE.length)), []),
  };
}
