import type { Logger } from '../log.js';
import type { Surface } from '../delivery/surface.js';
import type { BridgeInbound } from './types.js';

export type { AccessConfig, AgentConfig, Approvals, BridgeConfig, LimitsConfig, RouteConfig } from '../config/types.js';

export interface BridgeStats {
  /** Agent processes holding a slot. */
  activeAgents: number;
  /** Agent processes paused on a prompt, holding no slot. */
  parkedAgents: number;
  queued: number;
  turnsByOutcome: Record<string, number>;
}

export interface Bridge extends BridgeInbound {
  /** Register a platform's Surface (messages with msg.platform === surface.platform render there). */
  attach(surface: Surface): void;
  /** Stop accepting turns, cancel running ones, finalize their messages ("interrupted: the bridge restarted"). */
  shutdown(graceMs?: number): Promise<void>;
  stats(): BridgeStats;
  readonly logger: Logger;
}
