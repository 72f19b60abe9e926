/**
 * The configuration's types: what loadConfig (load-config.ts) builds from turnbridge.yaml and the
 * environment, and what every other layer reads. Derived from the settings table (schema.ts), so
 * a setting added there is typed here; they live below the bridge, so config/ imports nothing
 * above it.
 */
import type { ACCESS, AGENT, BRIDGE, DISCORD, LIMITS, LOCAL, ROUTE, SLACK, SLACK_STREAMING_MODES } from './schema.js';
import type { Read } from './table.js';

/** A route sends matching conversations to a profile; unset fields match anything (schema.ts ROUTE). */
export type RouteConfig = Read<typeof ROUTE>;

/** One suggested prompt (a route's `suggested_prompts`): its short title, and the message it sends. */
export type SuggestedPrompt = NonNullable<RouteConfig['suggestedPrompts']>[number];

/**
 * Who may Allow a tool request: `author` (default) the person who started the turn, or an
 * approver; `approvers` another person, an approver or admin (docs/approvals.md).
 */
export type Approvals = NonNullable<RouteConfig['approvals']>;

/** Who may use the bridge (docs/security.md). Identities are `platform:id` (config/identity-forms.ts). */
export type AccessConfig = Read<typeof ACCESS>;

/** Bounds on what one person (and everyone together) can hold (docs/security.md). */
export type LimitsConfig = Read<typeof LIMITS>;

/** How agent processes are started (docs/security.md). */
export type AgentConfig = Read<typeof AGENT> & {
  /** Paths agents must not see or start in: the bridge's directory, its .env, its data dir, its config file, its secret files. */
  protectedPaths: string[];
  /** The bridge's own directory (where it was started): an agent cwd below it is allowed, outside the other protected paths. */
  bridgeDir: string;
};

export type SlackMode = 'socket' | 'http';
export type SlackStreaming = (typeof SLACK_STREAMING_MODES)[number];

/** The Slack platform's settings: its section, its variables, and the mode its tokens choose. */
export type SlackConfig = Read<typeof SLACK> & {
  botToken: string;
  /** socket with SLACK_APP_TOKEN, http with only SLACK_SIGNING_SECRET. */
  mode: SlackMode;
};

export type ReplyMode = 'thread' | 'inline';

/** The Discord platform's settings: its section, its variables and the routes (for `options.reply`). */
export type DiscordConfig = Omit<Read<typeof DISCORD>, 'token' | 'allowBots' | 'enabled' | 'shards' | 'shardCount'> & {
  token: string;
  /**
   * Gateway shards this replica runs, of `count` in all (several replicas: each its own shards,
   * so no event arrives twice). Absent: one shard, [0] of 1. DMs always arrive on shard 0.
   */
  shards?: { ids: number[]; count: number };
  routes: RouteConfig[];
};

/** The local page's settings (`local:`). */
export type LocalConfig = Read<typeof LOCAL>;

/** The platforms to start: Slack and Discord when their tokens are set; the local page's settings (absent: its defaults). */
export interface PlatformConfigs {
  slack?: SlackConfig;
  discord?: DiscordConfig;
  local?: LocalConfig;
}

type Settings = Read<typeof BRIDGE>;

export type BridgeConfig = Omit<Settings, 'agent' | 'dm' | 'slack' | 'discord' | 'local'> & {
  /** The config file these values came from, when there was one. */
  file?: string;
  agent: AgentConfig;
  /**
   * turnbridge.yaml `dm:`: the route of every direct message (its profile defaults to
   * defaultProfile). Absent: a DM is served like a channel no route names (bridge/access/routing.ts).
   */
  dm?: RouteConfig;
  platforms: PlatformConfigs;
};
