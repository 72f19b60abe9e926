/**
 * The audit trail (docs/security.md "Audit trail"): permission decisions, access grants and their
 * removal, thread rules added and cleared. Each entry is one structured log line and one record in
 * the bridge state (namespace `audit`, key = the entry's id), written with the store's
 * set-if-absent: a record once written is never replaced by the bridge, here or on a replica
 * sharing Redis. Records expire after AUDIT_RETENTION_MS; `turnbridge audit` reads them.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from '../log.js';
import type { Guard } from './guard.js';
import type { StateStore } from './store.js';

/** How the decision came about. */
export type DecisionSource =
  | 'once' | 'thread' | 'edited' | 'rule' | 'answer' // allow (answer: a question card answered, the answers in `edited`)
  | 'button' | 'reason' | 'timeout' | 'expired' | 'unavailable'; // deny

/** A person as the trail keeps them: where they are, who, and the name when known. `cli` = a shell user of the host. */
export interface AuditPerson {
  platform: string;
  id: string;
  name?: string;
}

/** The tool input as kept: its JSON (keys sorted) cut at AUDIT_INPUT_MAX bytes, and the sha256 of all of it. */
export interface AuditedInput {
  text: string;
  /** The text is the first AUDIT_INPUT_MAX bytes only. */
  truncated?: true;
  /** sha256 (hex) of the whole input's JSON: the same input, the same digest. */
  sha256: string;
}

interface EntryBase {
  /** Time-ordered and unique: the record's key in the store. */
  id: string;
  /** ms since the epoch. */
  at: number;
}

export interface DecisionEntry extends EntryBase {
  kind: 'decision';
  platform: string;
  /** The conversation key (platform:space:channel:thread). */
  conversation: string;
  /** Who decided; absent for timeouts, expiries and rules (see `ruleSetBy`). */
  decider?: AuditPerson;
  tool: string;
  /** Absent only in records kept by older versions (a digest only). */
  input?: AuditedInput;
  decision: 'allow' | 'deny';
  source: DecisionSource;
  /** A deny's reason: what the agent was told (the person's own words for source `reason`). */
  reason?: string;
  /** The input the approver sent back instead (edit and allow). */
  edited?: AuditedInput;
  /** The rule added (thread) or used (rule), e.g. Bash(npm test:*). */
  rule?: string;
  ruleSetBy?: AuditPerson;
  /** From the request to the decision. */
  latencyMs: number;
  promptId?: string;
  turnId: string;
}

export interface GrantEntry extends EntryBase {
  kind: 'grant';
  /** `platform:id` let in. */
  identity: string;
  /** Their name, as the platform showed it when they asked (pairing). */
  name?: string;
  by: AuditPerson;
  via: 'cli' | 'chat' | 'pairing';
}

export interface GrantRemovedEntry extends EntryBase {
  kind: 'grant-removed';
  identity: string;
  by: AuditPerson;
}

export interface RuleAddedEntry extends EntryBase {
  kind: 'rule-added';
  conversation: string;
  rule: string;
  setBy: AuditPerson;
}

export interface RuleClearedEntry extends EntryBase {
  kind: 'rule-cleared';
  conversation: string;
  /** How many rules went. */
  count: number;
  by: AuditPerson;
  /** `rules clear`, or a session reset (`new` / `reset`). */
  why: 'rules-clear' | 'reset';
}

export type AuditEntry = DecisionEntry | GrantEntry | GrantRemovedEntry | RuleAddedEntry | RuleClearedEntry;
export type AuditKind = AuditEntry['kind'];
/** An entry to append: the trail stamps `id` (and `at`) unless given. */
export type NewAuditEntry = AuditEntry extends infer E ? (E extends AuditEntry ? Omit<E, 'id' | 'at'> & { id?: string; at?: number } : never) : never;

export const AUDIT_NS = 'audit';
/** How long the store keeps a record (the log keeps its own copy as long as logs are kept). */
export const AUDIT_RETENTION_MS = 90 * 86_400_000;
/** Bytes of tool input a decision record keeps (the digest covers all of it). */
export const AUDIT_INPUT_MAX = 4096;
/** Where versions before the append-only trail kept their last 1,000 decisions (read, never written). */
const LEGACY_KEY = 'audit:recent';

export interface AuditTrail {
  /**
   * Append an entry: resolves true once the store holds it, false when the store failed or a
   * record with this id is already there (it is kept as it was). Also logged at info.
   */
  append(e: NewAuditEntry): Promise<boolean>;
  /**
   * A permission decision (also counted in the metrics). Not awaited by the broker: see idle().
   * `log`, here and below: the turn's (or command's) logger, so that the line carries its tag and
   * does not repeat the context it binds.
   */
  record(r: Omit<DecisionEntry, 'kind' | 'id'>, log?: Logger): void;
  ruleAdded(r: Omit<RuleAddedEntry, 'kind' | 'id' | 'at'>, log?: Logger): void;
  ruleCleared(r: Omit<RuleClearedEntry, 'kind' | 'id' | 'at'>, log?: Logger): void;
  /** Entries at or after `since` (ms), oldest first. */
  since(since: number): Promise<AuditEntry[]>;
  /** Resolves once every entry so far is in the store (or failed). */
  idle(): Promise<void>;
}

/** Objects with sorted keys, recursively: the same value, the same JSON (digests and exact input rules). */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

/** The input as a record keeps it. */
export function auditedInput(input: unknown): AuditedInput {
  const json = JSON.stringify(canonical(input)) ?? 'null';
  const bytes = Buffer.from(json, 'utf8');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (bytes.length <= AUDIT_INPUT_MAX) return { text: json, sha256 };
  // A cut inside a multi-byte character decodes to U+FFFD: drop it.
  return { text: bytes.subarray(0, AUDIT_INPUT_MAX).toString('utf8').replace(/\uFFFD+$/, ''), truncated: true, sha256 };
}

/** A person as the trail keeps them. */
export function auditPerson(platform: string, u: { id: string; name?: string }): AuditPerson {
  return { platform, id: u.id, ...(u.name ? { name: u.name } : {}) };
}

/** What every decision record says of the request itself, wherever the decision came from. */
export function requestFacts(r: { platform: string; conversation: string; tool: string; input: unknown; turnId: string }): Pick<DecisionEntry, 'platform' | 'conversation' | 'tool' | 'input' | 'turnId'> {
  return { platform: r.platform, conversation: r.conversation, tool: r.tool, input: auditedInput(r.input), turnId: r.turnId };
}

/**
 * A fresh id: the time first (ids sort in time order), then this process's sequence number (two
 * entries of one millisecond keep their order), then 64 random bits (unique across replicas).
 */
export function auditIds(): (at: number) => string {
  let seq = 0;
  return (at) => `${String(Math.max(0, Math.floor(at))).padStart(13, '0')}-${String(seq++ % 1e6).padStart(6, '0')}-${randomBytes(8).toString('hex')}`;
}

const KINDS: ReadonlySet<string> = new Set<AuditKind>(['decision', 'grant', 'grant-removed', 'rule-added', 'rule-cleared']);

function isEntry(v: unknown): v is AuditEntry {
  const e = v as Partial<AuditEntry> | undefined;
  return typeof e?.at === 'number' && typeof e.id === 'string' && typeof e.kind === 'string' && KINDS.has(e.kind);
}

/** Decisions as versions before this trail kept them (`audit:recent`: a digest, `user` without a platform). */
function legacyEntries(v: unknown): DecisionEntry[] {
  if (!Array.isArray(v)) return [];
  return v.filter((r) => typeof r?.at === 'number' && typeof r?.decision === 'string' && typeof r?.tool === 'string').map((r, i) => {
    const { user, inputDigest: _digest, editedDigest: _edited, ruleSetBy, ...rest } = r as Record<string, unknown> & { platform: string; user?: { id: string; name?: string }; ruleSetBy?: { id: string; name?: string } };
    return {
      ...(rest as unknown as Omit<DecisionEntry, 'kind' | 'id'>),
      kind: 'decision' as const,
      id: `legacy-${String(i).padStart(4, '0')}`,
      ...(user ? { decider: auditPerson(rest.platform, user) } : {}),
      ...(ruleSetBy ? { ruleSetBy: auditPerson(rest.platform, ruleSetBy) } : {}),
    };
  });
}

/** Every entry in the store at or after `since`, oldest first (ties in id order). Throws on a store failure. */
export async function readAudit(store: StateStore, since: number): Promise<AuditEntry[]> {
  const [rows, legacy] = await Promise.all([store.entries<unknown>(AUDIT_NS), store.get<unknown>('kv', LEGACY_KEY)]);
  const all: AuditEntry[] = [...legacyEntries(legacy), ...rows.map((r) => r.value).filter(isEntry)];
  return all.filter((e) => e.at >= since).sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A short line for the log. */
function summary(e: AuditEntry): string {
  switch (e.kind) {
    case 'decision': return `permission ${e.decision} (${e.source}) ${e.tool}`;
    case 'grant': return `access granted to ${e.identity} (${e.via})`;
    case 'grant-removed': return `access grant removed for ${e.identity}`;
    case 'rule-added': return `permission rule added: ${e.rule}`;
    case 'rule-cleared': return `permission rules cleared (${e.count}, ${e.why})`;
  }
}

/** Where a decision is counted besides the trail (the bridge's metrics). */
export interface DecisionCounter {
  permissionDecision(decision: string, source: string, latencyMs: number): void;
}

export interface AuditOptions {
  metrics?: DecisionCounter;
  now?: () => number;
  idFactory?: (at: number) => string;
}

/**
 * The entry's fields for its log line, less those the logger binds with the same value (a turn's
 * logger: its id as `turn`, platform, conversation, the prompt's id): said once per line.
 */
function lineFields(fields: Record<string, unknown>, bindings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([k, v]) => !(k === 'turnId' ? bindings.turn === v : k in bindings && bindings[k] === v)));
}

export function auditOn(store: StateStore, guard: Guard, logger: Logger, opts: AuditOptions = {}): AuditTrail {
  const trailLog = logger.child({ component: 'audit' });
  const now = opts.now ?? Date.now;
  const newId = opts.idFactory ?? auditIds();
  const append = async (n: NewAuditEntry, via?: Logger): Promise<boolean> => {
    const at = n.at ?? now();
    const e = { ...n, at, id: n.id ?? newId(at) } as AuditEntry;
    const log = via ? via.child({ component: 'audit' }) : trailLog;
    // Tool input may hold what only the store should (file bodies), and a deny reason is a
    // person's words (message bodies are logged at debug only): the info line has the digests.
    const { input, edited, reason, ...rest } = e as DecisionEntry;
    if (reason !== undefined) log.debug({ id: e.id, reason }, 'deny reason');
    log.info({
      audit: e.kind === 'decision' ? 'permission_decision' : e.kind, ...lineFields(rest, via ? log.bindings() : {}),
      ...(input ? { inputSha256: input.sha256 } : {}), ...(edited ? { editedSha256: edited.sha256 } : {}),
    }, summary(e));
    const wrote = await guard.run('append audit', e.id, () => store.setIfNotExists(AUDIT_NS, e.id, e, AUDIT_RETENTION_MS), false, 'the entry is in the log only');
    if (!wrote) log.error({ id: e.id, kind: e.kind }, 'audit record not stored (a record with this id is kept as it was, or the store failed)');
    return wrote;
  };
  return {
    append,
    record(r, via) {
      opts.metrics?.permissionDecision(r.decision, r.source, r.latencyMs);
      void append({ kind: 'decision', ...r }, via);
    },
    ruleAdded: (r, via) => void append({ kind: 'rule-added', ...r }, via),
    ruleCleared: (r, via) => void append({ kind: 'rule-cleared', ...r }, via),
    async since(since) {
      await guard.drain();
      return readAudit(store, since);
    },
    idle: () => guard.drain(),
  };
}
