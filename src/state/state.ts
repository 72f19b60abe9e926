/**
 * The state: everything the bridge remembers, as typed methods on one StateStore (SQLite, Redis or
 * memory: the backend is chosen once, in create-state.ts). Platforms and the core use only this.
 *
 * One rule for every method: it never throws. A store failure, or a store slower than
 * `opTimeoutMs`, is logged (guard.ts) and answers the method's fallback, said where the method is
 * declared: reads answer "none", writes answer false (or nothing), a claim of an event answers
 * true (a rare repeat is better than a lost message). So a turn never fails because its state did.
 */
import type { Logger } from '../log.js';
import { auditOn, type AuditOptions, type AuditTrail } from './audit.js';
import { conversationsOn, conversationWrites, resetMarksOn, sessionsOn, type Conversations, type ResetMarks, type Sessions } from './conversations.js';
import { grantsOn, type AccessGrants } from './grants.js';
import { createGuard } from './guard.js';
import { keyvRecords } from './keyv-records.js';
import { ledgerOn, ledgerWrites, queueOn, type Ledger, type Queue } from './ledger.js';
import type { RerunRecord } from './records.js';
import { rulesOn, type Rules } from './rules.js';
import type { StateStore, StateWrite } from './store.js';
import { turnLedgerOn, type TurnLedger, type TurnLedgerInit } from './turn-ledger.js';
import type { Conversation } from '../chat.js';
import { worktreesOn, type Worktrees } from './worktrees.js';

export interface State {
  /** The primitives underneath (tests read raw records through it; the bridge never does). */
  readonly store: StateStore;
  /** This replica's id, recorded with what it holds (claims, queued turns, ledger records). */
  readonly holder: string;
  readonly sessions: Sessions;
  /** `new` / `reset` marks (shared by replicas): a turn running across a reset does not save its session. */
  readonly resets: ResetMarks;
  /** Who started each conversation, and its once-only notices. */
  readonly conversations: Conversations;
  /** Thread permission rules, per conversation. */
  readonly rules: Rules;
  /** People let in with `turnbridge allow` (beside the configured list), and pairing codes. */
  readonly grants: AccessGrants;
  readonly audit: AuditTrail;
  /** Message dedupe across replicas. */
  readonly events: {
    /**
     * Claim the keys of one message for `ttlMs` (its event id; Slack also its channel + ts, which
     * the twin event of a mention shares), all at once in one commit: true for exactly one caller
     * (across replicas) until they expire, and a caller that finds any key taken claims none.
     * A failing store answers true.
     */
    claim(ids: readonly string[], ttlMs: number): Promise<boolean>;
    /** Whether some caller (any replica) holds the claim on `id`; false when the store failed. */
    claimed(id: string): Promise<boolean>;
  };
  /** Threads the bot answers without a new mention (it started or answered them). */
  readonly threads: {
    own(key: string, ttlMs: number): Promise<void>;
    owns(key: string): Promise<boolean>;
  };
  readonly queue: Queue;
  readonly ledger: Ledger & {
    /** One turn's records (queued, its reply's journal, started, its agent, finished), written in order. */
    forTurn(t: TurnLedgerInit): TurnLedger;
  };
  /** Each conversation's git worktree of its route's project (routes with worktree: true). */
  readonly worktrees: Worktrees;
  /** Run again buttons of interrupted replies. */
  readonly reruns: {
    put(id: string, record: RerunRecord, ttlMs: number): Promise<void>;
    get(id: string): Promise<RerunRecord | undefined>;
    /** Use the button once: true for the first caller only (false when the store failed). */
    take(id: string, ttlMs: number): Promise<boolean>;
    remove(id: string): Promise<boolean>;
  };
  /**
   * The writes of a turn's bookkeeping as values for `write`: what changes the queue, the ledger
   * and the conversation's claims together (queued: pushed, recorded, author and notice claimed,
   * thread owned) goes in one commit, so a crash sees all of it or none, and the turn pays one
   * fsync instead of one per write.
   */
  readonly writes: typeof ledgerWrites & typeof conversationWrites & {
    threadOwn(key: string, ttlMs: number): StateWrite;
  };
  /** One boolean per write (false for a claim that was already taken: StateStore.write); undefined when the store failed. */
  write(writes: readonly StateWrite[]): Promise<boolean[] | undefined>;
  /** Resolves once every operation started so far has settled (shutdown: the last audit entries land). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface StateOptions {
  logger: Logger;
  /** This replica's id (default 'main'). */
  holder?: string;
  now?: () => number;
  /** A store operation slower than this counts as failed (default 3000 ms; undefined: no bound). */
  opTimeoutMs?: number | null;
  audit?: Omit<AuditOptions, 'now'>;
}

/** The typed state on a store; closing it closes the store. */
export function openState(store: StateStore, opts: StateOptions): State {
  const log = opts.logger.child({ component: 'state' });
  const now = opts.now ?? Date.now;
  const holder = opts.holder ?? 'main';
  const guard = createGuard(log, opts.opTimeoutMs === null ? undefined : (opts.opTimeoutMs ?? 3000));
  const audit = auditOn(store, guard, opts.logger, { ...opts.audit, now });
  const ledger = ledgerOn(store, guard);
  const writes: State['writes'] = {
    ...ledgerWrites,
    ...conversationWrites,
    threadOwn: (key, ttlMs) => ({ op: 'set', ns: 'thread', key, value: 1, ttlMs }),
  };
  const reruns = keyvRecords<RerunRecord>(store, guard, log, { ns: 'rerun', noun: 'rerun' });
  return {
    store,
    holder,
    sessions: sessionsOn(store, guard, log, now),
    resets: resetMarksOn(store, guard, log),
    conversations: conversationsOn(store, guard),
    rules: rulesOn(store, guard, log),
    grants: grantsOn(store, guard, audit, log, now),
    audit,
    events: {
      claim: (ids, ttlMs) => guard.run('claim', ids[0] ?? '', () => store.setIfNoneExist('event', ids, { holder }, ttlMs), true),
      claimed: (id) => guard.run('claimed', id, async () => (await store.get('event', id)) !== undefined, false),
    },
    threads: {
      own: (key, ttlMs) => guard.run('own thread', key, async () => void (await store.write([writes.threadOwn(key, ttlMs)])), undefined),
      owns: (key) => guard.run('owns-thread', key, async () => (await store.get('thread', key)) !== undefined, false),
    },
    queue: queueOn(store, guard),
    ledger: { ...ledger, forTurn: (t) => turnLedgerOn(store, guard, holder, now, t) },
    worktrees: worktreesOn(store, guard, log),
    reruns: {
      put: async (id, record, ttlMs) => void (await reruns.set(id, record, ttlMs)),
      get: (id) => reruns.get(id),
      // A claim: the StateStore's own set-if-absent, not Keyv's.
      take: (id, ttlMs) => guard.run('rerun', id, () => store.setIfNotExists('rerun-used', id, 1, ttlMs), false),
      remove: (id) => reruns.delete(id),
    },
    writes,
    write: (ws) => guard.run<boolean[] | undefined>('write', String(ws.length), () => store.write(ws), undefined),
    idle: () => guard.drain(),
    close: () => store.close(),
  };
}

/*
 * One unambiguous string per conversation: each part is percent-encoded, so ':' only ever
 * separates parts ("slack:T1:C1:1700.1", "discord::D1:" for a DM without a guild or thread).
 */
export function conversationKey(platform: string, c: Conversation): string {
  return [platform, c.space, c.channel, c.thread].map((p) => encodeURIComponent(p)).join(':');
}
