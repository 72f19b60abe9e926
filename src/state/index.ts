/**
 * The bridge's durable state (sessions, dedupe, owned threads, queues, ledger, rules, grants, the
 * audit trail, notices, authors, reset marks) on SQLite or Redis. Other layers import only from here.
 */
export type { StateStore, StateWrite } from './store.js';
export { createSqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export { createRedisStore, type RedisStoreOptions } from './redis-store.js';
export { createBridgeState, type BridgeState } from './bridge-state.js';
export { createState, type StateConfig } from './create-state.js';
export { ensurePrivateDir, ensurePrivateFile, privateDirMode, tightenFile, type PrivateDirMode, type PrivateOutcome } from './private-files.js';
export { sealStore, type RejectedRecord, type SealedStoreOptions } from './sealed-store.js';
export type * from './records.js';
export { conversationKey } from './conversation-key.js';
export { createGuardedOps, createKv, createStateKv, type GuardedOps, type KvStore } from './kv.js';
export { createSessionStore, guardSessionStore, type SessionStore, type SessionStoreOptions } from './session-store.js';
export { createSessionResets, RESET_MARK_TTL_MS, type SessionResets } from './session-resets.js';
export { createConversationAuthors, createConversationNotices, type ConversationAuthors, type ConversationNotices } from './conversation-claims.js';
export {
  createRuleStore, MAX_RULES_PER_CONVERSATION, parseStoredRules, sameRule,
  type PermissionRule, type RulePerson, type RuleScope, type RuleStore, type StoredRule,
} from './rule-store.js';
export {
  AUDIT_INPUT_MAX, AUDIT_NS, AUDIT_RETENTION_MS, auditedInput, auditIds, auditPerson, canonical, createAuditTrail, readAudit, requestFacts,
  type AuditedInput, type AuditEntry, type AuditKind, type AuditPerson, type AuditTrail, type DecisionCounter, type DecisionEntry, type DecisionSource,
  type GrantEntry, type GrantRemovedEntry, type NewAuditEntry, type RuleAddedEntry, type RuleClearedEntry,
} from './audit.js';
export {
  accessGrantsOn, createAccessGrants, grantor, grantsOnKv, PAIRING_CODE,
  type AccessGrant, type AccessGrants, type GrantResult, type PairingRequest,
} from './access-grants.js';
export { toStored, type ReceivedMessage } from './stored-message.js';
export { createTurnRecorder, type RecorderDeps, type TurnRecorder } from './turn-recorder.js';
