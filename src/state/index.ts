/**
 * The state: everything the bridge remembers, in one place. `State` (state.ts) is the one API:
 * typed methods for sessions, reset marks, conversations (authors, once-only notices, profile choices), rules,
 * access grants and pairing codes, the audit trail, event claims, owned threads, queues, the
 * ledger and Run again buttons. None of them throws (state.ts says what a failure answers).
 * Underneath, `StateStore` (store.ts) is the few primitives each backend offers: SQLite
 * (embedded, the default), Redis (shared by replicas, records sealed with the bus key) and memory
 * (unit tests); test/contract/state-contract.ts holds all three to the same behaviour.
 * createState() picks the backend from the configuration. Other layers import only from here.
 * Each record, where it is kept and for how long: docs/architecture.md, "What the bridge remembers".
 *
 * To add a record type: write its shape in records.ts (plain JSON), its methods as
 * `fooOn(store, guard, ...)` in the file of what it belongs to (conversations.ts: a
 * conversation's session, reset mark, author, notices, profile choice), else in a file of its own
 * (a namespace of its own, or `kv` with a key prefix), add it
 * to `State` in state.ts, and give it a case in the contract's State section. A record only read,
 * replaced and removed by key (with a TTL or not) goes through Keyv: `keyvRecords` (keyv-records.ts)
 * with its place and what a failure means. A set-if-absent claim, a listing or a write that must
 * land together with a turn's bookkeeping uses the primitives, every call through `guard.run`
 * with the fallback a failure answers; the last is a `StateWrite` builder in `State.writes`.
 */
export type { StateStore, StateWrite } from './store.js';
export { createSqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export { createRedisStore, type RedisStoreOptions } from './redis-store.js';
export { createMemoryStore, memoryData, type MemoryData, type MemoryStoreOptions } from './memory-store.js';
export { conversationKey, openState, type State, type StateOptions } from './state.js';
export { createState, openGrants, type StateConfig } from './create-state.js';
export { ensurePrivateDir, ensurePrivateFile, privateDirMode, tightenFile, type PrivateDirMode, type PrivateOutcome } from './private-files.js';
export { sealStore, type RejectedRecord, type SealedStoreOptions } from './sealed-store.js';
export type * from './records.js';
export { RESET_MARK_TTL_MS, type Conversations, type ProfileChoice, type ResetMarks, type Sessions } from './conversations.js';
export {
  MAX_RULES_PER_CONVERSATION, parseStoredRules, sameRule,
  type PermissionRule, type RulePerson, type RuleScope, type Rules, type StoredRule,
} from './rules.js';
export {
  AUDIT_INPUT_MAX, AUDIT_NS, AUDIT_RETENTION_MS, auditedInput, auditIds, auditPerson, canonical, readAudit, requestFacts,
  type AuditedInput, type AuditEntry, type AuditKind, type AuditPerson, type AuditTrail, type DecisionCounter, type DecisionEntry, type DecisionSource,
  type GrantEntry, type GrantRemovedEntry, type NewAuditEntry, type RuleAddedEntry, type RuleClearedEntry,
} from './audit.js';
export { grantor, PAIRING_CODE, type AccessGrant, type AccessGrants, type GrantResult, type PairingRequest } from './grants.js';
export type { Ledger, Queue } from './ledger.js';
export { toStored, type ReceivedMessage, type TurnLedger, type TurnLedgerInit } from './turn-ledger.js';
export type { Worktrees } from './worktrees.js';
