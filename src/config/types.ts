/**
 * The configuration's types: what loadConfig (load-config.ts) builds from turnbridge.yaml and the
 * environment, and what every other layer reads. They live here, below the bridge, so that
 * config/ imports nothing above it.
 */
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
  /** How long a question or plan card waits here (overrides question_timeout_secs; the turn's clock is held meanwhile). */
  questionTimeoutSecs?: number;
  /** Platform-specific switches (e.g. discord `reply: inline`). */
  options?: Record<string, unknown>;
  /** The older spelling of `approvals: approvers` (turnbridge.yaml `approvers_only: true`). */
  approversOnly?: boolean;
  /** approvers: the turn's author may not Allow here, another approver must (the author may still Deny and Stop). */
  approvals?: Approvals;
  /**
   * Prompts offered to people who open a conversation here, where the platform shows them (Slack:
   * at the top of an agent app's Messages tab, so on `dm:` or a route a DM reaches). At most 4.
   */
  suggestedPrompts?: SuggestedPrompt[];
}

/** One suggested prompt: its short title, and the message it sends. */
export interface SuggestedPrompt {
  title: string;
  message: string;
}

/**
 * Who may Allow a tool request: `author` (default) the person who started the turn, or an
 * approver; `approvers` another person, an approver or admin (docs/approvals.md).
 */
export type Approvals = 'author' | 'approvers';

/**
 * Who may use the bridge (docs/security.md). Identities are `platform:id` (bridge/access/access.ts).
 * The local page is not governed by this list: it is guarded by loopback binding or its token.
 */
export interface AccessConfig {
  /** closed (default): only allowUsers, grants made with `turnbridge allow`, and admins; open: anyone. */
  mode: 'open' | 'closed';
  /** TURNBRIDGE_ALLOW_USERS / access.allow_users: users, Slack user groups, Discord roles. */
  allowUsers: string[];
  /** TURNBRIDGE_ADMINS / access.admins: may allow users, decide any prompt, stop any turn, reset any session. */
  admins: string[];
  /** TURNBRIDGE_ALLOW_CHANNELS / access.channels: `platform:channelId` served; absent = every channel. */
  channels?: string[];
  /** TURNBRIDGE_ALLOW_DMS / access.dms: direct messages served (default true). */
  dms: boolean;
}

/** Bounds on what one person (and everyone together) can hold (docs/security.md). */
export interface LimitsConfig {
  /** Turns running at once per person (default 2). */
  runningPerUser: number;
  /** Turns waiting per person (default 5). */
  waitingPerUser: number;
  /** Turns waiting across the bridge (default 100); past it everyone gets "busy". */
  waiting: number;
  /**
   * Turns blocked on a permission prompt give their agent slot back so others can run; at most
   * this many do at once (default = max_concurrent), so processes stay <= max_concurrent + this.
   */
  promptWaits: number;
  /** Files of the agent's outbox posted after a turn (default 10; 0 = none: the outbox is left as it is). */
  outboxFiles: number;
  /** Bytes of one outbox file (default 20 MiB); a platform's own lower limit wins. */
  outboxBytes: number;
}

/** How agent processes are started (docs/security.md). */
export interface AgentConfig {
  /** Default cwd of agents whose profile sets none: a dedicated directory, never the bridge's own. */
  workspace: string;
  /**
   * auto (default): the bubblewrap box when its start-up probe passes, else unsandboxed with a
   * warning; bwrap: the box or no start; off: agents run as the bridge's user (a warning says so).
   */
  sandbox: 'auto' | 'off' | 'bwrap';
  /** Run agents as this uid/gid (the bridge must run as root). */
  runAs?: { uid: number; gid: number };
  /** Paths agents must not see or start in: the bridge's directory, its .env, its data dir, its config file. */
  protectedPaths: string[];
}

export interface BridgeConfig {
  /** The config file these values came from, when there was one. */
  file?: string;
  defaultProfile: string;
  routes: RouteConfig[];
  /**
   * turnbridge.yaml `dm:`: the route of every direct message (its profile defaults to
   * defaultProfile). Absent: a DM is served like a channel no route names (bridge/access/routing.ts).
   */
  dm?: RouteConfig;
  /** User ids (or Discord role ids) who may decide any prompt and stop any turn. */
  approvers: string[];
  /** TURNBRIDGE_APPROVALS / approvals: who may Allow, bridge-wide (absent: author; a route may only make it stricter). */
  approvals?: Approvals;
  /** Turns waiting per conversation beyond the running one (default 5). */
  queueDepth: number;
  /** Agent processes at once on this replica (default 4). */
  maxConcurrent: number;
  /**
   * Several replicas, opt-in: agent turns running at once across ALL replicas (a counting
   * semaphore in Redis; needs redisUrl). maxConcurrent still applies on each replica.
   */
  sharedMaxConcurrent?: number;
  /** Permission prompt timeout (default 600), always below the turn's own timeout. */
  permissionTimeoutSecs: number;
  /** How long a question or plan card waits (default 3600); the turn's clock is held meanwhile. */
  questionTimeoutSecs?: number;
  /** Embedded session store directory (default ./data). */
  dataDir: string;
  redisUrl?: string;
  /**
   * TURNBRIDGE_BUS_KEY (or _FILE), required with redisUrl: signs the replica bus and seals the
   * records kept in Redis (src/bus-key.ts). Never in turnbridge.yaml.
   */
  busKey?: string;
  /** TURNBRIDGE_BUS_KEY_PREVIOUS: still accepted when checking, never used to sign (a rotation). */
  busKeyPrevious?: string;
  /**
   * Several replicas: how long a replica's heartbeat lives without renewal (default 15 s). A
   * replica gone this long is taken over by another (TURNBRIDGE_REPLICA_HEARTBEAT_MS).
   */
  replicaHeartbeatMs?: number;
  /** The one HTTP server: health, metrics, local page, Slack HTTP receiver. */
  host: string;
  port: number;
  /** Graceful shutdown bound (default 10 s). */
  shutdownGraceSecs: number;
  logLevel: string;
  access: AccessConfig;
  limits: LimitsConfig;
  agent: AgentConfig;
  /** TURNBRIDGE_ALLOWED_HOSTS: Host header names served besides loopback names and IP literals. */
  allowedHosts: string[];
  /** TURNBRIDGE_LOCAL_TOKEN: the local page's token (required off loopback; generated and printed when unset). */
  localToken?: string;
  /**
   * TURNBRIDGE_METRICS_TOKEN: when set, /metrics needs `Authorization: Bearer <token>` and /readyz
   * shows its details only with it. Unset off loopback: served, with a start-up warning.
   */
  metricsToken?: string;
  /** Raw per-platform sections of turnbridge.yaml (`slack:`, `discord:`, `local:`), validated by each platform. */
  platforms: Record<string, Record<string, unknown>>;
}
