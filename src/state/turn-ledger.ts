/**
 * Writes a turn's life into the ledger and its conversation's queue, so that a restart after a
 * crash finds everything the bridge showed and had not finished (bridge/turns/recovery.ts). Every write
 * goes through one chain per turn, in order; journal writes coalesce (the latest wins).
 */
import type { ReplyJournal } from '../chat.js';
import type { Guard } from './guard.js';
import { ledgerWrites as w } from './ledger.js';
import type { LedgerRecord, StoredMessage } from './records.js';

type AgentRecord = Extract<LedgerRecord, { kind: 'agent' }>;
import type { StateStore, StateWrite } from './store.js';

export interface TurnLedger {
  /**
   * Accepted: in its conversation's queue, and its reply in the ledger, on disk before anything is
   * shown. `also`: other writes of the acceptance, in the same commit; resolves their results
   * (StateStore.write: false for a claim already taken), or undefined when the store failed.
   */
  queued(also?: readonly StateWrite[]): Promise<boolean[] | undefined>;
  /** The reply's messages changed (LiveReplyOptions.onJournal). */
  journal(j: ReplyJournal): void;
  /** The turn got its slot: out of the queue (resolves once stored, before the agent starts). */
  started(): Promise<void>;
  /**
   * The agent process is running (pid + its start time as the OS says: a restart ends it, never a
   * reused pid; `host`: where, so a taker on the same host may end it too).
   */
  agent(pid: number, startTime: string, host?: AgentRecord['host']): void;
  agentEnded(): void;
  /** Everything about the turn is finished: its records go. */
  finished(): Promise<void>;
}

/** `marker`: what the reply's live message carries (its Stop button's id), when the platform has buttons. */
export interface TurnLedgerInit {
  id: string;
  /** The conversation key. */
  key: string;
  msg: ReceivedMessage;
  enqueuedAt: number;
  marker?: string;
}

/** A turn's records; `holder`: this replica's id, `marker`: what the reply's live message carries (its Stop button's id). */
export function turnLedgerOn(store: StateStore, guard: Guard, holder: string, now: () => number, t: TurnLedgerInit): TurnLedger {
  const message = toStored(t.msg);
  const reply: Extract<LedgerRecord, { kind: 'reply' }> = {
    kind: 'reply', id: t.id, holder, turn: 'queued', message, author: t.msg.user, journal: { parts: [] }, updatedAt: now(),
    ...(t.marker ? { marker: t.marker } : {}),
  };
  const agentId = `agent:${t.id}`;
  let chain: Promise<void> = Promise.resolve();
  let journalQueued = false;
  let done = false;
  let hadAgent = false;
  const write = (op: string, fn: () => Promise<unknown>): Promise<void> => {
    chain = chain.then(() => guard.run(op, t.id, async () => void (await fn()), undefined));
    return chain;
  };
  const stamped = () => {
    reply.updatedAt = now();
    return reply;
  };
  const commit = (writes: StateWrite[]) => store.write(writes);
  return {
    async queued(also = []) {
      // One commit: the queue entry, its reply record and the caller's writes (state.writes).
      let results: boolean[] | undefined;
      await write('record queued turn', async () => {
        results = (await commit([w.queuePush(t.key, { turnId: t.id, holder, message, enqueuedAt: t.enqueuedAt }), w.ledgerPut(stamped()), ...also])).slice(2);
      });
      return results;
    },
    journal(j) {
      reply.journal = j;
      if (journalQueued || done) return;
      journalQueued = true;
      void write('record reply', async () => {
        journalQueued = false;
        if (!done) await commit([w.ledgerPut(stamped())]);
      });
    },
    started() {
      reply.turn = 'running';
      return write('record turn start', () => commit([w.ledgerPut(stamped()), w.queueRemove(t.key, t.id)]));
    },
    agent(pid, startTime, host) {
      hadAgent = true;
      void write('record agent', () => commit([w.ledgerPut({ kind: 'agent', id: agentId, turnId: t.id, holder, pid, startTime, ...(host ? { host } : {}) })]));
    },
    agentEnded() {
      if (hadAgent) void write('forget agent', () => store.delete('ledger', agentId));
    },
    finished() {
      done = true;
      return write('forget turn', () => commit([w.queueRemove(t.key, t.id), ...(hadAgent ? [w.ledgerRemove(agentId)] : []), w.ledgerRemove(t.id)]));
    },
  };
}

/* A user's message as the state keeps it (a queued turn, a Run again button): no files, only their references. */

/** What toStored reads of a message as received (the bridge's InboundMessage has these fields). */
export type ReceivedMessage = Omit<StoredMessage, 'attachments'> & { attachmentRefs?: StoredMessage['attachments'] };

/** The user's message as received: text, author, where, and the files as references only. */
export function toStored(msg: ReceivedMessage): StoredMessage {
  return {
    platform: msg.platform,
    conversation: msg.conversation,
    user: msg.user,
    text: msg.text,
    eventId: msg.eventId,
    receivedAt: msg.receivedAt,
    ...(msg.source ? { source: msg.source } : {}),
    attachments: msg.attachmentRefs ?? [],
    ...(msg.notices?.length ? { notices: msg.notices } : {}),
    ...(msg.direct ? { direct: true } : {}),
  };
}
