import type { BridgeConfig } from '../../config/types.js';
import type { BoundedMap } from '../../bounded-map.js';
import type { Delivery } from '../../delivery/types.js';
import type { Surface } from '../../delivery/surface.js';
import type { Logger } from '../../log.js';
import type { Profile } from '../../profile/index.js';
import type { LaunchPolicy, run } from '../../runner/index.js';
import type { Metrics } from '../metrics.js';
import type { PermissionBroker } from '../approvals/index.js';
import type { State } from '../../state/index.js';
import type { ConversationGate } from '../../replicas/index.js';
import type { ConversationActivities } from './conversation-activity.js';
import type { Turn } from './turn.js';
import type { TurnQueue } from './turn-queue.js';
import type { TurnRegistry } from './turn-registry.js';

export type RunTurn = typeof run;

/** What the steps of a turn share (built once by createBridge). */
export interface BridgeContext {
  config: BridgeConfig;
  logger: Logger;
  /** Everything remembered (sessions, rules, grants, audit, queues, ledger...): its methods never throw. */
  state: State;
  ownThreadTtlMs: number;
  /** When each refused person last got the way-in reply (one per person per window, not one per message; bounded). */
  wayInShown: BoundedMap<string, number>;
  runTurn: RunTurn;
  /** The environment agents are started in (absent: the runner's default). */
  agentEnv?: NodeJS.ProcessEnv;
  broker: PermissionBroker;
  queue: TurnQueue<Turn>;
  metrics: Metrics;
  now: () => number;
  idFactory: () => string;
  profile: (path: string) => Promise<Profile>;
  surfaces: Map<string, { surface: Surface; delivery: Delivery }>;
  /** Every turn held (gated, queued, running, stopping, finishing) and its phase; recently ended ones. */
  turns: TurnRegistry<Turn>;
  /** How agents start: workspace, protected paths, sandbox, run_as (from config.agent). */
  launchPolicy: LaunchPolicy;
  /** How each conversation's work stands, for platforms that show it (Slack's agent session status). */
  activity: ConversationActivities;
  /** Several replicas: one turn at a time per conversation across all of them (Redis). */
  gate?: { gate: ConversationGate; replicaId: string };
  closing: boolean;
  updateGauges(): void;
}
