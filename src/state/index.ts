/**
 * The bridge's durable state (sessions, dedupe, owned threads, queues, ledger) on SQLite or Redis.
 * Other layers import only from here.
 */
export type { StateStore, StateWrite } from './store.js';
export { createSqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export { createRedisStore, type RedisStoreOptions } from './redis-store.js';
export { createBridgeState, type BridgeState } from './bridge-state.js';
export { createState, type StateConfig } from './create-state.js';
export { ensurePrivateDir, ensurePrivateFile, privateDirMode, tightenFile, type PrivateDirMode, type PrivateOutcome } from './private-files.js';
export { sealStore, type RejectedRecord, type SealedStoreOptions } from './sealed-store.js';
export type * from './records.js';
