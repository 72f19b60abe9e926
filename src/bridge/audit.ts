/**
 * The audit trail of permission decisions: one structured log line per decision, the decision
 * metrics, and the most recent decisions in the store (key `audit:recent`) for `turnbridge audit`.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../log.js';
import type { KvStore } from './kv.js';
import type { Metrics } from './metrics.js';

/** How the decision came about. */
export type DecisionSource =
  | 'once' | 'thread' | 'edited' | 'rule' // allow
  | 'button' | 'reason' | 'timeout' | 'expired' | 'unavailable'; // deny

export interface DecisionRecord {
  /** ms since the epoch. */
  at: number;
  platform: string;
  /** The conversation key (platform:space:channel:thread). */
  conversation: string;
  /** Who decided; absent for timeouts, expiries and rules (see `ruleSetBy`). */
  user?: { id: string; name?: string };
  tool: string;
  /** sha256 of the request's input (canonical JSON), first 16 hex digits: the same input, the same digest. */
  inputDigest: string;
  /** Digest of the input the approver sent back (edit and allow). */
  editedDigest?: string;
  decision: 'allow' | 'deny';
  source: DecisionSource;
  /** The rule added (thread) or used (rule), e.g. Bash(npm test:*). */
  rule?: string;
  ruleSetBy?: { id: string; name?: string };
  /** From the request to the decision. */
  latencyMs: number;
  promptId?: string;
  turnId: string;
}

/** A person as the trail keeps them: id, and the name when known. */
export function auditPerson(u: { id: string; name?: string }): { id: string; name?: string } {
  return { id: u.id, ...(u.name ? { name: u.name } : {}) };
}

/** What every record says of the request itself, wherever the decision came from. */
export function requestFacts(r: { platform: string; conversation: string; tool: string; input: unknown; turnId: string }): Pick<DecisionRecord, 'platform' | 'conversation' | 'tool' | 'inputDigest' | 'turnId'> {
  return { platform: r.platform, conversation: r.conversation, tool: r.tool, inputDigest: inputDigest(r.input), turnId: r.turnId };
}

export const AUDIT_KEY = 'audit:recent';
/** Decisions kept in the store for `turnbridge audit`. */
export const AUDIT_KEEP = 1000;

export interface AuditTrail {
  record(r: DecisionRecord): void;
  /** Decisions at or after `since` (ms), oldest first. */
  since(since: number): Promise<DecisionRecord[]>;
  /** Resolves once every record so far is in the store. */
  idle(): Promise<void>;
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

export function inputDigest(input: unknown): string {
  return createHash('sha256').update(JSON.stringify(canonical(input)) ?? 'null').digest('hex').slice(0, 16);
}

export function readAuditRecords(v: unknown): DecisionRecord[] {
  if (!Array.isArray(v)) return [];
  return v.filter((r): r is DecisionRecord => typeof r?.at === 'number' && typeof r?.decision === 'string' && typeof r?.tool === 'string');
}

export function createAuditTrail(opts: { kv: KvStore; logger: Logger; metrics?: Metrics; keep?: number }): AuditTrail {
  const keep = opts.keep ?? AUDIT_KEEP;
  const log = opts.logger.child({ component: 'audit' });
  let chain: Promise<unknown> = Promise.resolve();
  return {
    record(r) {
      log.info({ audit: 'permission_decision', ...r }, `permission ${r.decision} (${r.source}) ${r.tool}`);
      opts.metrics?.permissionDecision(r.decision, r.source, r.latencyMs);
      // Appends are serialised here; replicas sharing Redis may, rarely, drop one another's
      // entry from this recent list (the log line above is the complete record).
      chain = chain.then(async () => {
        const all = readAuditRecords(await opts.kv.get(AUDIT_KEY));
        all.push(r);
        await opts.kv.set(AUDIT_KEY, all.slice(-keep));
      });
    },
    async since(since) {
      await chain;
      return readAuditRecords(await opts.kv.get(AUDIT_KEY)).filter((r) => r.at >= since).sort((a, b) => a.at - b.at);
    },
    async idle() {
      await chain;
    },
  };
}
