import type { Logger } from '../log.js';
import type { Surface } from '../delivery/surface.js';
import type { BridgeInbound } from './types.js';

/** A route sends matching conversations to a profile; unset fields match anything. */
export interface RouteConfig {
  platform?: string;
  space?: string;
  channel?: string;
  /** Profile YAML path (relative paths resolved against the config file's directory). */
  profile: string;
  /** User ids allowed here; absent = everyone. */
  allowUsers?: string[];
  /** Channel ids allowed here; absent = every channel the bot is in. */
  allowChannels?: string[];
  /** Who may answer prompts here besides the author and the bridge's `approvers` (user ids). */
  approvers?: string[];
  /** Approver groups here: Slack user group (subteam) ids, Discord role ids. */
  approverGroups?: string[];
  /** Permission prompt timeout here (overrides permission_timeout_secs; still below the turn timeout). */
  approvalTimeoutSecs?: number;
  /** Platform-specific switches (e.g. discord `reply: inline`). */
  options?: Record<string, unknown>;
}

export interface BridgeConfig {
  /** The config file these values came from, when there was one. */
  file?: string;
  defaultProfile: string;
  routes: RouteConfig[];
  /** User ids (or Discord role ids) who may decide any prompt and stop any turn. */
  approvers: string[];
  /** Turns waiting per conversation beyond the running one (default 5). */
  queueDepth: number;
  /** Agent processes at once across the bridge (default 4). */
  maxConcurrent: number;
  /** Permission prompt timeout (default 600), always below the turn's own timeout. */
  permissionTimeoutSecs: number;
  /** Embedded session store directory (default ./data). */
  dataDir: string;
  redisUrl?: string;
  /** The one HTTP server: health, metrics, local page, Slack HTTP receiver. */
  host: string;
  port: number;
  /** Graceful shutdown bound (default 10 s). */
  shutdownGraceSecs: number;
  logLevel: string;
  /** Raw per-platform sections of turnbridge.yaml (`slack:`, `discord:`, `local:`), validated by each platform. */
  platforms: Record<string, Record<string, unknown>>;
}

export interface BridgeStats {
  activeAgents: number;
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
