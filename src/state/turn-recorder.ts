/**
 * Writes a turn's life into the ledger and its conversation's queue, so that a restart after a
 * crash finds everything the bridge showed and had not finished (bridge/recovery.ts). Every write
 * goes through one chain per turn, in order; journal writes coalesce (the latest wins).
 */
import type { ReplyJournal } from '../delivery/types.js';
import type { BridgeState } from './bridge-state.js';
import type { GuardedOps } from './kv.js';
import type { LedgerRecord } from './records.js';
import type { StateWrite } from './store.js';
import { toStored, type ReceivedMessage } from './stored-message.js';

export interface TurnRecorder {
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
  /** The agent process is running (pid + its start time as the OS says: a restart ends it, never a reused pid). */
  agent(pid: number, startTime: string): void;
  agentEnded(): void;
  /** Everything about the turn is finished: its records go. */
  finished(): Promise<void>;
}

/** What the recorder writes with: the state, this replica's id, the clock and the bridge's guard (a failed write is logged). */
export interface RecorderDeps {
  state: BridgeState;
  holder: string;
  now: () => number;
  guarded: GuardedOps['run'];
}

/** `marker`: what the reply's live message carries (its Stop button's id), when the platform has buttons. */
export function createTurnRecorder(ctx: RecorderDeps, t: { id: string; key: string; msg: ReceivedMessage; enqueuedAt: number; marker?: string }): TurnRecorder {
  const message = toStored(t.msg);
  const reply: Extract<LedgerRecord, { kind: 'reply' }> = {
    kind: 'reply', id: t.id, holder: ctx.holder, turn: 'queued', message, author: t.msg.user, journal: { parts: [] }, updatedAt: ctx.now(),
    ...(t.marker ? { marker: t.marker } : {}),
  };
  const agentId = `agent:${t.id}`;
  let chain: Promise<void> = Promise.resolve();
  let journalQueued = false;
  let done = false;
  let hadAgent = false;
  const write = (op: string, fn: () => Promise<unknown>): Promise<void> => {
    chain = chain.then(() => ctx.guarded(op, t.id, async () => void (await fn()), undefined));
    return chain;
  };
  const w = ctx.state.writes;
  const stamped = () => {
    reply.updatedAt = ctx.now();
    return reply;
  };
  const putReply = () => ctx.state.ledger.put(stamped());
  return {
    async queued(also = []) {
      // One commit: the queue entry, its reply record and the caller's writes (see BridgeState.writes).
      let results: boolean[] | undefined;
      await write('record queued turn', async () => {
        results = (await ctx.state.write([w.queuePush(t.key, { turnId: t.id, holder: ctx.holder, message, enqueuedAt: t.enqueuedAt }), w.ledgerPut(stamped()), ...also])).slice(2);
      });
      return results;
    },
    journal(j) {
      reply.journal = j;
      if (journalQueued || done) return;
      journalQueued = true;
      void write('record reply', async () => {
        journalQueued = false;
        if (!done) await putReply();
      });
    },
    started() {
      reply.turn = 'running';
      return write('record turn start', () => ctx.state.write([w.ledgerPut(stamped()), w.queueRemove(t.key, t.id)]));
    },
    agent(pid, startTime) {
      hadAgent = true;
      void write('record agent', () => ctx.state.ledger.put({ kind: 'agent', id: agentId, turnId: t.id, holder: ctx.holder, pid, startTime }));
    },
    agentEnded() {
      if (hadAgent) void write('forget agent', () => ctx.state.ledger.remove(agentId));
    },
    finished() {
      done = true;
      return write('forget turn', () => ctx.state.write([w.queueRemove(t.key, t.id), ...(hadAgent ? [w.ledgerRemove(agentId)] : []), w.ledgerRemove(t.id)]));
    },
  };
}
