/**
 * The settings table: every setting of turnbridge.yaml and of the environment, in one place, with
 * how it is read, checked and defaulted (table.ts is the engine, readers.ts the kinds of value).
 * A setting's key in the file is the snake_case of its name here; `env` names the variable that
 * wins over the file. The config types (types.ts) are derived from this table.
 */
import { DEFAULT_MAX_ATTACHMENT_BYTES, DEFAULT_MAX_ATTACHMENTS, DEFAULTS, LOG_LEVELS, defaultProfilePath, defaultWorkspace } from './defaults.js';
import { fail } from './field-checks.js';
import {
  atLeast, bearerToken, bool, busKey, channelList, dirPath, host, hostList, httpUrl, id, identities, int, mapping, oneOf, path, pathList, port, redisUrl,
  seconds, strictBool, stringList, suggestedPrompts, text, uidGid, wholeAtLeast,
} from './readers.js';
import { checkRoutePlace, checkRoutePlatform } from './route-ids.js';
import { checkRouteWorkspace } from './route-workspace.js';
import { type Reader, listOf, section, setting } from './table.js';

/**
 * Who may Allow a tool request: `author` (default) the person who started the turn, or an
 * approver; `approvers` another person, an approver or admin (docs/approvals.md).
 */
export const approvals = oneOf(['author', 'approvers'] as const, 'author (the person who started the turn may allow) or approvers (another person, an approver or admin, must allow)');

/** What a route may restrict, on `routes:` entries and on `dm:`. */
const restrictions = {
  /** User ids allowed here; absent = everyone. */
  allowUsers: setting(stringList),
  /** Who may answer prompts here besides the author and the bridge's `approvers` (user ids). */
  approvers: setting(stringList),
  /** Approver groups here: Slack user group (subteam) ids, Discord role ids. */
  approverGroups: setting(stringList),
  /** Permission prompt timeout here (overrides permission_timeout_secs; still below the turn timeout). */
  approvalTimeoutSecs: setting(seconds(86_400)),
  /** How long a question or plan card waits here (overrides question_timeout_secs; the turn's clock is held meanwhile). */
  questionTimeoutSecs: setting(seconds(86_400)),
  /** Profiles a thread here may switch to with `use <name>` besides its own (overrides the bridge-wide `profiles`; docs/approvals.md#switching-a-threads-profile-use). */
  profiles: setting(pathList),
  /** The older spelling of `approvals: approvers` (turnbridge.yaml `approvers_only: true`). */
  approversOnly: setting(strictBool),
  /** approvers: the turn's author may not Allow here, another approver must (the author may still Deny and Stop). */
  approvals: setting(approvals),
  /** A finished reply's muted last line with the turn's usage (tokens in/out, cost when reported); overrides the bridge-wide show_usage. */
  showUsage: setting(strictBool),
  /** Platform-specific switches (e.g. discord `reply: inline`, slack `streaming: edit`). */
  options: setting(mapping('a mapping of platform-specific switches, e.g. {reply: inline}')),
  /**
   * Prompts offered to people who open a conversation here, where the platform shows them (Slack:
   * at the top of an agent app's Messages tab, so on `dm:` or a route a DM reaches). At most 4.
   */
  suggestedPrompts: setting(suggestedPrompts),
};

function checkRestrictions(r: { approversOnly?: boolean; approvals?: string }, where: (k: 'approvals') => { src: { file?: string }; field: string }): void {
  if (r.approversOnly === true && r.approvals === 'author') {
    const at = where('approvals');
    fail(at.src, at.field, 'author', 'approvers, as approvers_only: true says', 'remove approvers_only (approvals: approvers is its newer spelling) or make them agree');
  }
}

/** A route sends matching conversations to a profile; unset fields match anything. */
export const ROUTE = section({
  platform: setting<string>((at, v) => checkRoutePlatform(at.src, at.field, id(at, v))),
  space: setting(id),
  channel: setting(id),
  /** Profile YAML path (relative paths resolved against the config file's directory). */
  profile: setting(path, { required: { expected: 'the path of a profile YAML file', hint: 'every route needs a profile' } }),
  /** Channel ids allowed here; absent = every channel the bot is in. */
  allowChannels: setting(stringList),
  ...restrictions,
  /** The project this route's agents run in (wins over a profile's own cwd). Absent: each conversation's own workspace. */
  workspace: setting(dirPath),
  /** Each conversation gets a git worktree of `workspace` on a branch `turnbridge/<short id>`. */
  worktree: setting(strictBool),
  /** The ref new worktrees branch from (default the repository's HEAD when the worktree is made). */
  worktreeBase: setting(text),
  /** Days an idle worktree with no uncommitted changes is kept before it is removed (default 14). */
  worktreeIdleDays: setting(seconds(3650)),
}, {
  check(r, where) {
    for (const key of ['space', 'channel'] as const) {
      const v = r[key];
      if (v !== undefined) checkRoutePlace(where(key).src, where(key).field, v, r.platform);
    }
    checkRestrictions(r, where);
    checkRouteWorkspace(r, where);
  },
});

/** `dm:`: the route of direct messages, matched by being one (no platform, space, channel or channel list). */
export const DM = section({
  profile: setting(path, { fallback: (c) => c.root.defaultProfile as string }),
  ...restrictions,
}, { optional: true, check: checkRestrictions });

/** Who may use the bridge (docs/security.md). The local page is guarded by loopback binding or its token instead. */
export const ACCESS = section({
  /** closed (default): only allowUsers, grants made with `turnbridge allow`, and admins; open: anyone. */
  mode: setting(oneOf(['open', 'closed'] as const, 'closed (only allowed users) or open (anyone who can reach the bot)'), { env: 'TURNBRIDGE_ACCESS', fallback: () => 'closed' as const }),
  /** Users, Slack user groups, Discord roles, as platform:id. */
  allowUsers: setting(identities, { env: 'TURNBRIDGE_ALLOW_USERS', fallback: () => [] }),
  /** May allow users, decide any prompt, stop any turn, reset any session. */
  admins: setting(identities, { env: 'TURNBRIDGE_ADMINS', fallback: () => [] }),
  /** `platform:channelId` served; absent = every channel. */
  channels: setting(channelList, { env: 'TURNBRIDGE_ALLOW_CHANNELS' }),
  /** Direct messages served. */
  dms: setting(bool, { env: 'TURNBRIDGE_ALLOW_DMS', fallback: () => true }),
});

/** Bounds on what one person (and everyone together) can hold (docs/security.md). */
export const LIMITS = section({
  /** Turns running at once per person. */
  runningPerUser: setting(int(1, 1000), { env: 'TURNBRIDGE_MAX_RUNNING_PER_USER', fallback: () => 2 }),
  /** Turns waiting per person. */
  waitingPerUser: setting(int(0, 1000), { env: 'TURNBRIDGE_MAX_WAITING_PER_USER', fallback: () => 5 }),
  /** Turns waiting across the bridge; past it everyone gets "busy". */
  waiting: setting(int(0, 100_000), { env: 'TURNBRIDGE_MAX_WAITING', fallback: () => 100 }),
  /**
   * Turns blocked on a permission prompt give their agent slot back so others can run; at most
   * this many do at once (default = max_concurrent), so processes stay <= max_concurrent + this.
   */
  promptWaits: setting(int(0, 1000), { env: 'TURNBRIDGE_MAX_PROMPT_WAITS', fallback: (c) => c.root.maxConcurrent as number }),
  /** Files of the agent's outbox posted after a turn (0 = none: the outbox is left as it is). */
  outboxFiles: setting(int(0, 100), { fallback: () => 10 }),
  /** Bytes of one outbox file; a platform's own lower limit wins. */
  outboxBytes: setting(int(1, 2 ** 30), { fallback: () => 20 * 1048576 }),
});

/** How agent processes are started (docs/security.md). */
export const AGENT = section({
  /** Default cwd of agents whose profile sets none: a dedicated directory, never the bridge's own. */
  workspace: setting(dirPath, { env: 'TURNBRIDGE_WORKSPACE', fallback: defaultWorkspace }),
  /**
   * auto (default): the bubblewrap box when its start-up probe passes, else unsandboxed with a
   * warning; bwrap: the box or no start; off: agents run as the bridge's user (a warning says so).
   */
  sandbox: setting(oneOf(['auto', 'off', 'bwrap'] as const, 'auto (the default: the bubblewrap box when it can start here), bwrap (the box or no start) or off'), { env: 'TURNBRIDGE_SANDBOX', fallback: () => 'auto' as const }),
  /** Run agents as this uid/gid (the bridge must run as root). */
  runAs: setting(uidGid, { env: 'TURNBRIDGE_RUN_AS' }),
});

/**
 * How Slack replies stream. auto: native streaming (chat.startStream / appendStream / stopStream)
 * where Slack allows it, falling back to post + chat.update for good (per workspace) when Slack
 * says streaming is not available; native: always try native streaming, failures are logged as
 * errors every time and never remembered; edit: post once, then chat.update.
 */
export const SLACK_STREAMING_MODES = ['auto', 'native', 'edit'] as const;

/** Show only a token's kind, never its value. */
function tokenShape(value: string): string {
  return value.length > 5 ? `${value.slice(0, 5)}… (${value.length} chars)` : value;
}

function prefixed(prefix: string, expected: string, hint: string): Reader<string> {
  return (at, v) => {
    const s = String(v);
    if (!s.startsWith(prefix)) fail(at.src, at.field, tokenShape(s), expected, hint);
    return s;
  };
}

/** The `slack:` section and the Slack variables; the platform is on when SLACK_BOT_TOKEN is set (platform-configs.ts). */
export const SLACK = section({
  botToken: setting(prefixed('xoxb-', 'a bot token starting with xoxb-', 'use the Bot User OAuth Token, not a user (xoxp-) or app-level (xapp-) token'), { env: 'SLACK_BOT_TOKEN', envOnly: true, secret: true }),
  appToken: setting(prefixed('xapp-', 'an app-level token starting with xapp-', 'create one under Basic Information -> App-Level Tokens with the connections:write scope'), { env: 'SLACK_APP_TOKEN', envOnly: true, secret: true }),
  signingSecret: setting(text, { env: 'SLACK_SIGNING_SECRET', envOnly: true, secret: true }),
  /** Web API base, always ending in '/'. Socket Mode's apps.connections.open goes here too. */
  apiUrl: setting((at, v) => {
    const u = httpUrl('an http(s) URL such as https://slack.com/api/', 'leave it unset for slack.com')(at, v);
    return u.href.endsWith('/') ? u.href : `${u.href}/`;
  }, { env: 'SLACK_API_URL', fallback: () => 'https://slack.com/api/' }),
  streaming: setting(oneOf(SLACK_STREAMING_MODES, 'auto, native or edit', 'auto streams natively where Slack allows it and falls back to post + chat.update; edit always posts and edits'), { env: 'SLACK_STREAMING', fallback: () => 'auto' as const }),
  /** HTTP mode: the receiver's host (default the bridge's HOST). */
  httpHost: setting(text, { env: 'SLACK_HTTP_HOST', fallback: (c) => c.root.host as string }),
  /**
   * HTTP mode: a port of its own for Bolt's receiver (POST /slack/events). Unset: the route is
   * mounted on the bridge's one HTTP server when the platform is given it, else port 3001.
   */
  httpPort: setting<number>((at, v) => {
    const n = typeof v === 'string' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 65_535) fail(at.src, at.field, v, 'a port number 0-65535', 'HTTP mode listens there for POST /slack/events');
    return n;
  }, { env: 'SLACK_HTTP_PORT' }),
  /** eyes / white_check_mark / x on the user's message. */
  reactions: setting(strictBool, { fallback: () => true }),
  /** assistant.threads.setStatus while nothing is visible yet (failures ignored). */
  typing: setting(strictBool, { fallback: () => true }),
  /** Accept messages from other bots (never from this one). */
  allowBots: setting(strictBool, { fallback: () => false }),
  maxAttachmentBytes: setting(atLeast(1), { fallback: () => DEFAULT_MAX_ATTACHMENT_BYTES }),
  maxAttachments: setting(atLeast(0), { fallback: () => DEFAULT_MAX_ATTACHMENTS }),
  keepAttachments: setting(strictBool, { fallback: () => false }),
  attachmentsDir: setting(text),
  /** Threads remembered as "the bot has a conversation here" (oldest forgotten first). */
  maxActiveThreads: setting(atLeast(1), { fallback: () => 5_000 }),
  /** Web API retries for 5xx / network errors (429s are never retried by the client). */
  apiRetries: setting(atLeast(0), { fallback: () => 2 }),
  /** Web API request timeout. */
  apiTimeoutMs: setting(atLeast(1), { fallback: () => 30_000 }),
  /** Background reconnect back-off: first delay and cap (never below the first). */
  reconnectBaseMs: setting(atLeast(1), { fallback: () => 2_000 }),
  reconnectMaxMs: setting(atLeast(1), { fallback: () => 60_000 }),
  /** Socket Mode ping timeout; also Bolt's reconnect delay unit. */
  clientPingTimeoutMs: setting(atLeast(100), { fallback: () => 5_000 }),
  /**
   * Multiplies every rate budget and divides the edit interval. 1 in production; tests run
   * against a fake Slack whose budgets are scaled by the same factor (ratios stay honest).
   */
  rateScale: setting(atLeast(0.001), { fallback: () => 1 }),
}, { camelCaseToo: true });

const ARCHIVE = [60, 1440, 4320, 10080] as const;
const SHARDS_HINT = 'e.g. shards 0,1 of shard_count 4 on one replica and 2,3 on the other; every shard must run on exactly one replica';

/** "thread" or "inline": where Discord replies go in server channels. */
export const discordReply: Reader<'thread' | 'inline'> = (at, v) => {
  if (v === 'thread' || v === 'inline') return v;
  fail(at.src, at.field, v, '"thread" or "inline"', 'thread: answer in a thread started from the mention; inline: answer in the channel');
};

/** The `discord:` section and the Discord variables; the platform is on when DISCORD_TOKEN is set (platform-configs.ts). */
export const DISCORD = section({
  token: setting((at, v) => {
    const t = String(v).replace(/^Bot\s+/i, '');
    if (/\s/.test(t)) fail(at.src, at.field, '[redacted]', 'one token without spaces', 'copy the token again from Bot > Reset Token');
    return t;
  }, { env: 'DISCORD_TOKEN', envOnly: true, secret: true }),
  /** REST base without the version (discord.js appends /v10); unset = discord.com. */
  apiUrl: setting((at, v) => {
    const u = httpUrl('an http(s) URL such as https://discord.com/api', 'leave it unset for discord.com; set it only for a proxy or a test server')(at, v);
    return u.toString().replace(/\/+$/, '').replace(/\/v\d+$/, '');
  }, { env: 'DISCORD_API_URL', envOnly: true }),
  /** Accepted for symmetry with local.enabled; Discord is on when DISCORD_TOKEN is set. */
  enabled: setting(strictBool),
  /**
   * Answer un-mentioned follow-ups in the bot's threads (needs the privileged Message Content
   * intent). 'auto' (default): ask for the intent when the application has it granted.
   */
  readUnmentioned: setting<'auto' | boolean>((at, v) => {
    if (v === 'auto' || typeof v === 'boolean') return v;
    fail(at.src, at.field, v, 'auto, true or false', 'auto asks for Message Content when the portal grants it');
  }, { fallback: () => 'auto' as const }),
  /** Ignore messages from other bots and webhooks (the bot's own messages are always ignored). */
  ignoreBots: setting(strictBool, { fallback: () => true }),
  /** The inverse of ignore_bots; wins when set. */
  allowBots: setting(strictBool),
  /** Reactions on the user's message for turn state. */
  reactions: setting(strictBool, { fallback: () => true }),
  /** Default reply mode for server channels; a route may override it with `options.reply`. */
  reply: setting(discordReply, { fallback: () => 'thread' as const }),
  /** Minutes of inactivity before a thread the bot started is archived. */
  threadAutoArchiveMinutes: setting<(typeof ARCHIVE)[number]>((at, v) => {
    if (!ARCHIVE.includes(v as (typeof ARCHIVE)[number])) fail(at.src, at.field, v, 'one of 60, 1440, 4320, 10080');
    return v as (typeof ARCHIVE)[number];
  }, { fallback: () => 1440 as const }),
  /** Re-send the typing indicator this often while no text is shown (Discord shows it ~10 s). */
  typingIntervalMs: setting(wholeAtLeast(1), { fallback: () => 8000 }),
  maxAttachmentBytes: setting(wholeAtLeast(1)),
  maxAttachments: setting(wholeAtLeast(1)),
  /** Keep per-turn download directories after the turn. */
  keepAttachments: setting(strictBool, { fallback: () => false }),
  /** Parent of per-turn download directories (default the OS temp dir). */
  attachmentsDir: setting((at, v) => {
    if (typeof v !== 'string' || !v) fail(at.src, at.field, v, 'a directory path');
    return v;
  }),
  /** The gateway shards this replica runs (DISCORD_SHARDS "0,1"), of shard_count. */
  shards: setting<number[]>((at, v) => {
    const ids = typeof v === 'string' ? v.split(',').map((s) => (s.trim() === '' ? NaN : Number(s))) : v;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((n) => Number.isInteger(n) && n >= 0)) fail(at.src, at.field, v, 'distinct shard ids from 0', SHARDS_HINT);
    return ids as number[];
  }, { env: 'DISCORD_SHARDS' }),
  shardCount: setting<number>((at, v) => {
    const n = typeof v === 'string' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) fail(at.src, at.field, v, 'the total number of shards, a whole number >= 1', SHARDS_HINT);
    return n;
  }, { env: 'DISCORD_SHARD_COUNT' }),
}, {
  camelCaseToo: true,
  // Both from the environment or both from the file (discord.js alone would turn `shards: [1]` into shard [1, 1]).
  together: [['shards', 'shardCount']],
  check(d, where) {
    if (d.shards === undefined) return;
    if (d.shardCount === undefined) {
      const at = where('shardCount');
      fail(at.src, at.field, undefined, 'the total number of shards, a whole number >= 1', SHARDS_HINT);
    }
    if (!d.shards.every((n) => n < d.shardCount!) || new Set(d.shards).size !== d.shards.length) {
      const at = where('shards');
      fail(at.src, at.field, d.shards, `distinct shard ids from 0 to ${d.shardCount - 1}`, SHARDS_HINT);
    }
  },
});

/** The `local:` section: the local page's own limits, so splitting and pacing can be seen working. */
export const LOCAL = section({
  /** Start the local page even when Slack/Discord credentials are present (TURNBRIDGE_LOCAL=1, `start --local`). */
  enabled: setting(strictBool, { env: 'TURNBRIDGE_LOCAL', fallback: () => false }),
  /** Longest answer text of one message before the reply continues in a new one. */
  maxTextChars: setting(wholeAtLeast(100), { fallback: () => 3000 }),
  /** Longest thinking line shown. */
  maxThinkingChars: setting(wholeAtLeast(1), { fallback: () => 600 }),
  /** Target gap between edits of one live message. */
  minEditIntervalMs: setting(wholeAtLeast(0), { fallback: () => 250 }),
  /** Edit budget per page (conversation), per minute. */
  editsPerMinute: setting(wholeAtLeast(1), { fallback: () => 240 }),
  /** Post budget per page, per minute. */
  postsPerMinute: setting(wholeAtLeast(1), { fallback: () => 60 }),
  /** The fixed local user (author of every turn typed in the page). */
  userId: setting(text, { fallback: () => 'local-user' }),
  userName: setting(text, { fallback: () => 'you' }),
});

/** The whole of turnbridge.yaml and the environment. */
export const BRIDGE = section({
  defaultProfile: setting(path, { env: 'TURNBRIDGE_PROFILE', fallback: defaultProfilePath }),
  routes: setting(listOf(ROUTE, { list: 'a list of routes, each with at least `profile:`', item: 'a mapping with profile: and optional platform/space/channel', hint: 'see turnbridge.example.yaml' }), { fallback: () => [] }),
  /** User ids (or Discord role ids) who may decide any prompt and stop any turn. */
  approvers: setting(identities, { env: 'TURNBRIDGE_APPROVERS', fallback: () => [] }),
  /** Who may Allow, bridge-wide (absent: author; a route may only make it stricter). */
  approvals: setting(approvals, { env: 'TURNBRIDGE_APPROVALS' }),
  /** Turns waiting per conversation beyond the running one. */
  queueDepth: setting(int(0, 1000), { env: 'TURNBRIDGE_QUEUE_DEPTH', fallback: () => DEFAULTS.queueDepth }),
  /** Agent processes at once on this replica. */
  maxConcurrent: setting(int(1, 1000), { env: 'TURNBRIDGE_MAX_CONCURRENT', fallback: () => DEFAULTS.maxConcurrent }),
  /**
   * Several replicas, opt-in: agent turns running at once across ALL replicas (a counting
   * semaphore in Redis; needs redisUrl). maxConcurrent still applies on each replica.
   */
  sharedMaxConcurrent: setting(int(1, 100_000), { env: 'TURNBRIDGE_SHARED_MAX_CONCURRENT' }),
  /** Permission prompt timeout, always below the turn's own timeout. */
  permissionTimeoutSecs: setting(seconds(86_400), { env: 'TURNBRIDGE_PERMISSION_TIMEOUT_SECS', fallback: () => DEFAULTS.permissionTimeoutSecs }),
  /** Profiles a thread may switch to with `use <name>` where its route names none (TURNBRIDGE_PROFILES: comma separated). */
  profiles: setting(pathList, { env: 'TURNBRIDGE_PROFILES', fallback: () => [] }),
  /** How long a question or plan card waits (a route may set its own); the turn's clock is held meanwhile (docs/approvals.md, "Cards"). */
  questionTimeoutSecs: setting(seconds(86_400), { env: 'TURNBRIDGE_QUESTION_TIMEOUT_SECS', fallback: () => DEFAULTS.questionTimeoutSecs }),
  /** A finished reply ends with a muted line of the turn's usage (tokens in/out, cost when the agent reports it); a route may say otherwise. */
  showUsage: setting(bool, { env: 'TURNBRIDGE_SHOW_USAGE', fallback: () => true }),
  /** Embedded session store directory. */
  dataDir: setting(path, { env: 'TURNBRIDGE_DATA_DIR', fallback: (c) => path({ src: {}, field: 'data_dir', base: c.cwd }, DEFAULTS.dataDir) }),
  redisUrl: setting(redisUrl, { env: 'REDIS_URL' }),
  /** Signs the replica bus and seals the records kept in Redis (src/bus-key.ts); required with redisUrl. */
  busKey: setting(busKey, { env: 'TURNBRIDGE_BUS_KEY', envOnly: true, secret: true }),
  /** Still accepted when checking, never used to sign (a rotation). */
  busKeyPrevious: setting(busKey, { env: 'TURNBRIDGE_BUS_KEY_PREVIOUS', envOnly: true, secret: true }),
  /** How long a replica's heartbeat lives without renewal (default 15 s); a replica gone this long is taken over. */
  replicaHeartbeatMs: setting(int(300, 600_000), { env: 'TURNBRIDGE_REPLICA_HEARTBEAT_MS', envOnly: true }),
  /** This replica's name in Redis (default host-pid-random): a restarted replica with the same id recovers what it left. */
  replicaId: setting(text, { env: 'TURNBRIDGE_REPLICA_ID', envOnly: true }),
  /** NO_COLOR set: log lines on a terminal without colours. */
  noColor: setting(() => true, { env: 'NO_COLOR', envOnly: true, fallback: () => false }),
  /** NODE_ENV=production: JSON log lines even on a terminal. */
  jsonLogs: setting((_, v) => v === 'production', { env: 'NODE_ENV', envOnly: true, fallback: () => false }),
  /** The one HTTP server: health, metrics, local page, Slack HTTP receiver. */
  host: setting(host, { env: 'HOST', fallback: () => DEFAULTS.host }),
  port: setting(port, { env: 'PORT', fallback: () => DEFAULTS.port }),
  /** Graceful shutdown bound. */
  shutdownGraceSecs: setting(seconds(3600), { fallback: () => DEFAULTS.shutdownGraceSecs }),
  logLevel: setting(oneOf(LOG_LEVELS, `one of ${LOG_LEVELS.join(', ')}`), { env: 'LOG_LEVEL', fallback: () => DEFAULTS.logLevel }),
  access: ACCESS,
  limits: LIMITS,
  agent: AGENT,
  /** Host header names served besides loopback names and IP literals. */
  allowedHosts: setting(hostList, { env: 'TURNBRIDGE_ALLOWED_HOSTS', fallback: () => [] }),
  /** The local page's token (required off loopback; generated and printed when unset). */
  localToken: setting(bearerToken('or unset it to have one generated and printed at start-up'), { env: 'TURNBRIDGE_LOCAL_TOKEN', envOnly: true, secret: true }),
  /**
   * When set, /metrics needs `Authorization: Bearer <token>` and /readyz shows its details only
   * with it. Unset off loopback: served, with a start-up warning.
   */
  metricsToken: setting(bearerToken('and give Prometheus the same value (authorization: { credentials_file: … })'), { env: 'TURNBRIDGE_METRICS_TOKEN', envOnly: true, secret: true }),
  dm: DM,
  slack: SLACK,
  discord: DISCORD,
  local: LOCAL,
});
