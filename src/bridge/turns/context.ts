import type { BridgeConfig } from '../../config/types.js';
import type { BoundedMap } from '../../bounded-map.js';
import type { Delivery } from '../../delivery/types.js';
import type { Surface } from '../../delivery/surface.js';
import type { Logger } from '../../log.js';
import type { Profile } from '../../profile/index.js';
import type { LaunchPolicy, run } from '../../runner/index.js';
import type { Metrics } from '../metrics.js';
import type { PermissionBroker } from '../approvals/index.js';
import type { AccessGrants, AuditTrail, BridgeState, ConversationAuthors, ConversationNotices, RuleStore, SessionResets, SessionStore } from '../../state/index.js';
import type { ConversationGate } from '../../replicas/index.js';
import type { Turn } from './turn.js';
import type { TurnQueue } from './turn-queue.js';
import type { TurnRegistry } from './turn-registry.js';

export type RunTurn = typeof run;

/** What the steps of a turn share (built once by createBridge). */
export interface BridgeContext {
  config: BridgeConfig;
  logger: Logger;
  store: SessionStore;
  state: BridgeState;
  /** This replica's id, recorded with what it holds. */
  holder: string;
  /** Run a state operation; on failure or timeout log and return the fallback. */
  guarded<T>(op: string, key: string, fn: () => Promise<T>, fallback: T): Promise<T>;
  ownThreadTtlMs: number;
  /** Grants made with `turnbridge allow` (added to config.access.allowUsers). */
  grants: AccessGrants;
  /** When each refused person last got the way-in reply (one per person per window, not one per message; bounded). */
  wayInShown: BoundedMap<string, number>;
  runTurn: RunTurn;
  broker: PermissionBroker;
  queue: TurnQueue<Turn>;
  metrics: Metrics;
  now: () => number;
  idFactory: () => string;
  profile: (path: string) => Promise<Profile>;
  surfaces: Map<string, { surface: Surface; delivery: Delivery }>;
  /** Every turn held (gated, queued, running, stopping, finishing) and its phase; recently ended ones; session generations. */
  turns: TurnRegistry<Turn>;
  /** How agents start: workspace, protected paths, sandbox, run_as (from config.agent). */
  launchPolicy: LaunchPolicy;
  /** Thread permission rules, in the store. */
  rules: RuleStore;
  /** Once-per-conversation notices (the "runs tools without asking" banner), in the store. */
  notices: ConversationNotices;
  /** Who started each conversation (`new` / `reset` is theirs), in the store from its first accepted turn. */
  authors: ConversationAuthors;
  /** `new` / `reset` marks (shared by replicas): a turn running across a reset does not save its session. */
  resets: SessionResets;
  audit: AuditTrail;
  /** Several replicas: one turn at a time per conversation across all of them (Redis). */
  gate?: { gate: ConversationGate; replicaId: string };
  closing: boolean;
  updateGauges(): void;
}
