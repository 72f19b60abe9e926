/**
 * `npm start` / `turnbridge start`: load the configuration, start the one HTTP server, the bridge
 * core and the platforms that have credentials (the local chat page when none do), and on
 * SIGTERM / SIGINT stop the bridge (finalizing running replies) before the platforms disconnect.
 */
import { choosePlatforms, loadConfig } from './config/index.js';
import type { BridgeConfig } from './config/types.js';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type CoreBridge, createBridge, createMetrics, type Platform, type PlatformFactoryOptions } from './bridge/index.js';
import { createBusKey } from './bus-key.js';
import { isTurnbridgeError, problemLines, TurnbridgeError } from './errors.js';
import { createHttpServer, type HttpServer } from './http/index.js';
import { createDelivery, createSharedLimiters, type SharedLimiters } from './delivery/index.js';
import { createLogger, logsPretty, type Logger } from './log.js';
import type { ReplicaBus, SharedSlots, Takeover } from './replicas/index.js';
import { connectRedis } from './redis/index.js';
import { createLocalPlatform } from './platforms/local/index.js';
import { agentEnv, processEnv } from './config/bridge-env.js';
import { withSecretFiles } from './config/secret-files.js';
import { onParentGone } from './parent-watch.js';
import { usageLine } from './cli/help.js';
import { decideSandbox, loadEgressProxy, sandboxFix, sandboxInForce, stageLine } from './runner/index.js';
import { metricsExposure, preflightProfiles, startStartupChecks, type StartupCheckRun } from './doctor/index.js';

export { choosePlatforms };


export interface StartOptions {
  /**
   * The environment the settings are read from, with the *_FILE secrets in (default agentEnv).
   * Tokens are read from here and never logged.
   */
  env?: NodeJS.ProcessEnv;
  /** The environment agents are started in and their profiles' ${VAR} read (default the process's with ./.env under it: config/bridge-env.ts). */
  agentEnv?: NodeJS.ProcessEnv;
  /** Config file (TURNBRIDGE_CONFIG wins over it). */
  configFile?: string;
  logger?: Logger;
  /** Where the URL and hints are printed (default stdout). */
  print?: (line: string) => void;
  /** Passed to createBridge (tests). */
  runTurn?: Parameters<typeof createBridge>[0]['runTurn'];
}

/** A started bridge: its URL, its parts, and the one way to stop it. */
export interface RunningTurnbridge {
  readonly url: string;
  readonly config: BridgeConfig;
  readonly http: HttpServer;
  readonly bridge: CoreBridge;
  readonly platforms: readonly Platform[];
  /** Resolves when crash recovery is done (/readyz says ready from then on). */
  readonly recovered: Promise<unknown>;
  /** The doctor's checks run at start-up (also in /readyz under `checks`). */
  readonly checks: StartupCheckRun;
  /** Stop the bridge, then the platforms, then HTTP, bounded by config.shutdownGraceSecs. Safe to call twice. */
  shutdown(): Promise<void>;
}

/**
 * Security settings that cannot work here fail the start; weak ones are said plainly
 * (docs/security.md). Returns the lines to print.
 */
export function checkSecurity(config: BridgeConfig, chat: boolean, logger: Logger): string[] {
  const lines: string[] = [];
  const { agent, access } = config;
  if (agent.runAs && typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new TurnbridgeError('TB_CONFIG_INVALID', `TURNBRIDGE_RUN_AS=${agent.runAs.uid}:${agent.runAs.gid} needs the bridge to run as root (it runs as uid ${process.getuid()})`, {
      field: 'TURNBRIDGE_RUN_AS', hint: 'unset TURNBRIDGE_RUN_AS (agent.run_as), or start the bridge as root (containers usually do)',
    });
  }
  const box = sandboxInForce(agent.sandbox, agent.runAs ? { runAs: agent.runAs } : {});
  const mode = `TURNBRIDGE_SANDBOX=${agent.sandbox}${agent.sandbox === 'auto' ? ', the default' : ''}`;
  if (box.inForce === 'bwrap') {
    const text = `agents run sandboxed (${mode}): each in a bubblewrap box with no capabilities, no network but its profile's sandbox.allow_hosts, none of the bridge's files, ${stageLine(box.box)} (docs/security.md)`;
    logger.info({ sandbox: 'bwrap', requested: agent.sandbox, seccomp: box.box.stage !== undefined, workspace: agent.workspace }, text);
    lines.push(`turnbridge: ${text}`);
    void loadEgressProxy().catch((err: unknown) => logger.warn({ err }, 'the sandbox egress proxy could not load: sandboxed agents that need the network will fail'));
  } else {
    const who = typeof process.getuid === 'function' ? `uid ${agent.runAs?.uid ?? process.getuid()}` : 'the bridge\'s user';
    const why = box.requested === 'auto' ? `the sandbox cannot start here (${box.problem}), so ` : '';
    const fix = box.requested === 'auto' ? `To fix: ${sandboxFix(box.problem)}` : 'Set TURNBRIDGE_SANDBOX=auto (the default) or bwrap to box them in (docs/security.md)';
    const text = `${why}agents run unsandboxed (${mode}) as ${agent.runAs ? `run_as ${who}` : `the bridge's user (${who})`}: they can read whatever that user can${agent.runAs ? '' : ', including the bridge\'s .env and /proc/<bridge pid>/environ'}, and reach every service on this machine. ${fix}`;
    logger.warn({ sandbox: 'off', requested: agent.sandbox, runAs: agent.runAs, workspace: agent.workspace }, text);
    lines.push(`turnbridge: warning: ${text}`);
  }
  if (chat && access.mode === 'closed' && access.allowUsers.length === 0 && access.admins.length === 0) {
    const text = 'access is closed and no one is on the access list yet: Slack/Discord users get a reply telling them how to be let in. '
      + 'Let someone in with `turnbridge allow slack:U0123` (or discord:…), or set TURNBRIDGE_ALLOW_USERS / TURNBRIDGE_ADMINS; TURNBRIDGE_ACCESS=open serves everyone';
    logger.warn({ access: 'closed', allowUsers: 0 }, text);
    lines.push(`turnbridge: ${text}`);
  } else if (chat && access.mode === 'open') {
    logger.warn({ access: 'open' }, 'access is open: anyone who can reach the bot can start an agent (TURNBRIDGE_ACCESS)');
  }
  const metrics = metricsExposure(config);
  if (metrics.state === 'open') {
    const text = `${metrics.text}. ${metrics.fix.charAt(0).toUpperCase()}${metrics.fix.slice(1)} (docs/security.md)`;
    logger.warn({ host: config.host, metricsToken: 'unset' }, text);
    lines.push(`turnbridge: warning: ${text}`);
  }
  return lines;
}

/** /readyz `sandbox`: the mode asked for, the one in force, and why they differ. */
function sandboxDetail(agent: Pick<BridgeConfig['agent'], 'sandbox' | 'runAs'>): { requested: string; inForce: 'bwrap' | 'off'; problem?: string; seccomp?: boolean; seccompProblem?: string } {
  const d = decideSandbox(agent.sandbox, agent.runAs ? { runAs: agent.runAs } : {});
  const seccomp = d.inForce === 'bwrap' ? { seccomp: d.box.stage !== undefined, ...(d.box.stage ? {} : { seccompProblem: d.box.stageProblem }) } : {};
  return { requested: agent.sandbox, inForce: d.inForce === 'bwrap' ? 'bwrap' : 'off', ...('problem' in d ? { problem: d.problem } : {}), ...seccomp };
}

/** Start everything; resolves once the HTTP server listens and every platform's start() returned. */
export async function startTurnbridge(opts: StartOptions = {}): Promise<RunningTurnbridge> {
  const agentsEnv = opts.agentEnv ?? agentEnv(processEnv());
  const env = withSecretFiles(opts.env ?? agentsEnv);
  const print = opts.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  // Everything is checked before anything is created (the store, the workspace, a socket, Redis
  // connections): every setting of turnbridge.yaml and the environment, the platforms' included;
  // then the profiles, against the environment turns get (the runner expands profiles from it);
  // then what the security settings need of this host (run_as, the box).
  const config = loadConfig({ env, file: opts.configFile });
  await preflightProfiles(config, agentsEnv);
  const pretty = logsPretty() && !config.jsonLogs;
  const logger = opts.logger ?? createLogger({ level: config.logLevel, pretty, color: !config.noColor });
  const wanted = choosePlatforms(config);
  const securityLines = checkSecurity(config, wanted.slack || wanted.discord, logger);
  const metrics = createMetrics({ processMetrics: true });
  // With Redis, every replica spends one set of platform budgets (bottleneck clustered on Redis)
  // and clicks reach the replica that holds the agent (the replica bus).
  // One owner of this process's Redis connections and of their health (redis/).
  const redis = config.redisUrl ? connectRedis(config.redisUrl, { logger }) : undefined;
  const shared: SharedLimiters | undefined = redis
    ? await createSharedLimiters({ redis, logger })
    : undefined;
  const bus: ReplicaBus | undefined = redis
    ? (await import('./replicas/index.js')).createReplicaBus({
      redis, logger, ...(config.replicaHeartbeatMs ? { heartbeatTtlMs: config.replicaHeartbeatMs } : {}),
      ...(config.replicaId ? { id: config.replicaId } : {}),
      // loadConfig refused REDIS_URL without a key; the bus signs and checks every message with it.
      key: createBusKey(config.busKey ?? '', config.busKeyPrevious), onDropped: (reason) => metrics.untrusted('bus', reason),
    })
    : undefined;
  const gate = redis && bus
    ? (await import('./replicas/index.js')).createConversationGate({ redis, logger, alive: (id) => bus.alive(id) })
    : undefined;
  // Opt-in: a cap on running turns counted across every replica (a semaphore in Redis).
  const sharedSlots: SharedSlots | undefined = redis && config.sharedMaxConcurrent
    ? (await import('./replicas/index.js')).createSharedSlots({ redis, limit: config.sharedMaxConcurrent, logger })
    : undefined;
  // Messages and clicks wait until what a crashed run left is finished (bridge.recover() below).
  const bridge = createBridge({
    config, logger, metrics, runTurn: opts.runTurn, recoverAtStart: true, redis, bus, gate, sharedSlots, agentEnv: agentsEnv,
    // The ledger's holder: a restarted replica recovers what it left (TURNBRIDGE_REPLICA_ID keeps it stable).
    ...(bus ? { replicaId: bus.id } : {}),
    ...(shared ? { createDelivery: (surface, o) => createDelivery(surface, { ...o, limiterFactory: shared.factory }) } : {}),
  });
  const http = createHttpServer({ host: config.host, port: config.port, logger, metrics: () => metrics.render(), allowedHosts: config.allowedHosts,
    ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
  });

  /** What this replica holds in Redis, closed after the bridge and the platforms; the connections last. */
  const closeRedisParts = async (): Promise<void> => {
    await shared?.close();
    await sharedSlots?.close();
    await gate?.close();
    await bus?.close();
    await redis?.close();
  };

  const base: PlatformFactoryOptions = { config, logger };
  const platforms: Platform[] = [];
  const started: Platform[] = [];
  let local: ReturnType<typeof createLocalPlatform> | undefined;
  try {
    // Dynamic imports: @slack/bolt and discord.js load only when their tokens are set.
    if (wanted.slack) platforms.push((await import('./platforms/slack/index.js')).createSlackPlatform({ ...base, http }));
    if (wanted.discord) platforms.push((await import('./platforms/discord/index.js')).createDiscordPlatform(base));
    if (wanted.local) platforms.push(local = createLocalPlatform({ ...base, http }));
    for (const p of platforms) http.addReadiness(p);
    http.addReadiness({ name: 'recovery', status: () => bridge.readiness() });
    await listen(http, config);
    for (const p of platforms) {
      bridge.attach(p.surface);
      await p.start(bridge);
      started.push(p);
    }
  } catch (err) {
    // Leave nothing open behind a failed start (tests and `turnbridge start` may go on living).
    for (const p of started.reverse()) await p.stop().catch(() => {});
    await bridge.shutdown(0).catch(() => {});
    await closeRedisParts();
    await http.close(0);
    throw err;
  }
  // A replica that is gone (heartbeat expired, or drained) is taken over by one survivor; this
  // replica's own recovery runs under the same claim, so a taker still at it finishes first.
  let takeover: Takeover | undefined;
  if (bus && redis) {
    takeover = (await import('./replicas/index.js')).createTakeover({
      bus, redis, logger, recover: (holder) => bridge.takeOver(holder),
      everyMs: Math.max(100, Math.floor((config.replicaHeartbeatMs ?? 15_000) / 3)),
    });
  }
  // The platforms are connected (clicks and edits can land): finish what a crashed run left.
  const recovered = takeover ? takeover.own(() => bridge.recover()) : bridge.recover();
  if (takeover) {
    const t = takeover;
    void recovered.then(() => {
      t.start();
      return t.sweep();
    });
  }
  const checks = startStartupChecks(config, env, logger);
  http.addReadyDetail('checks', () => checks.current());
  http.addReadyDetail('sandbox', () => sandboxDetail(config.agent));
  if (bus) await showReplica(http, metrics, bridge, bus, shared, config);
  if (sharedSlots) {
    const s = sharedSlots;
    http.addReadyDetail('sharedSlots', () => ({ limit: s.limit, held: s.held, state: s.state }));
  }
  const names = platforms.map((p) => p.name);
  const notReady = platforms.filter((p) => p.status().state !== 'ready').map((p) => ({ name: p.name, ...p.status() }));
  logger.info({ platforms: names, notReady, url: http.url, profile: config.defaultProfile }, 'platforms live');

  // Each is also a log line, of the bridge's own logger a person or a collector reads (a terminal's
  // line, a JSON line): said once there. A caller's logger may be silent: printed for it too.
  if (opts.logger) for (const line of securityLines) print(line);
  if (wanted.local) {
    const hint = wanted.slack || wanted.discord ? ''
      : '\n  to connect Slack set SLACK_BOT_TOKEN + SLACK_APP_TOKEN (docs/slack.md); Discord: DISCORD_TOKEN (docs/discord.md)';
    // Off loopback the page asks for its token: the printed URL carries it (never logged).
    const pageUrl = local?.token ? `${http.url}?token=${local.token}` : http.url;
    print(`turnbridge: local chat at ${pageUrl}${hint}`);
  } else {
    print(`turnbridge: started ${names.join(' + ')}; readiness at ${http.url}readyz`);
  }

  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopping ??= stopAll();
    return stopping;
  };
  async function stopAll(): Promise<void> {
    const graceMs = config.shutdownGraceSecs * 1000;
    const steps = async () => {
      http.setDraining();
      // No more takeovers: what this replica would take over waits for another.
      await takeover?.close();
      // The bridge first, while the platforms are still connected: it stops taking turns and
      // finalizes running replies ("interrupted: the bridge restarted") through them, and leaves
      // the turns that did not start queued in the ledger (another replica, or the next start,
      // runs them: the bus's goodbye below lets the others take over at their next look). Then the
      // platforms disconnect, in reverse order of start, and the HTTP server closes.
      await bridge.shutdown(graceMs).catch((err: unknown) => logger.warn({ err }, 'bridge shutdown failed'));
      for (const p of [...started].reverse()) {
        await p.stop().catch((err: unknown) => logger.warn({ err, platform: p.name }, 'platform stop failed'));
      }
      await closeRedisParts();
      await http.close(Math.min(1000, graceMs));
    };
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), graceMs + 1000); });
    const outcome = await Promise.race([steps().then(() => 'done' as const), bound]);
    clearTimeout(timer);
    if (outcome === 'timeout') logger.warn({ graceMs }, 'shutdown did not finish within the grace period');
    else logger.info('stopped');
  }

  return { url: http.url, config, http, bridge, platforms, checks, shutdown, recovered };
}

/**
 * Several replicas: /readyz and /metrics say which replica this is, the Discord shards it runs,
 * the turns it holds and whether the platform budgets are shared (or paced alone, Redis away).
 */
async function showReplica(http: HttpServer, metrics: ReturnType<typeof createMetrics>, bridge: CoreBridge, bus: ReplicaBus, shared: SharedLimiters | undefined, config: BridgeConfig): Promise<void> {
  const { Gauge } = await import('prom-client');
  const sharded = config.platforms.discord?.shards;
  const shards = sharded ? `${sharded.ids.join(',')}/${sharded.count}` : '';
  new Gauge({ name: 'turnbridge_replica_info', help: 'This replica (always 1), with its id and Discord shards.', labelNames: ['replica', 'shards'], registers: [metrics.registry] })
    .set({ replica: bus.id, shards }, 1);
  new Gauge({
    name: 'turnbridge_shared_budgets', help: 'Platform budgets: 1 = shared by every replica through Redis, 0 = paced by this replica alone.', registers: [metrics.registry],
    collect() { this.set(shared?.state === 'shared' ? 1 : 0); },
  });
  http.addReadyDetail('replica', () => {
    const s = bridge.stats();
    return { id: bus.id, ...(shards ? { discordShards: shards } : {}), heldTurns: s.activeAgents + s.queued, sharedBudgets: shared?.state ?? 'off' };
  });
}

async function listen(http: HttpServer, config: BridgeConfig): Promise<void> {
  try {
    await http.listen();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL' && code !== 'ENOTFOUND' && code !== 'EAI_AGAIN') throw err;
    throw new TurnbridgeError('TB_CONFIG_INVALID', `cannot listen on ${config.host}:${config.port} (${code === 'ENOTFOUND' ? `${code}: no such host` : code})`, {
      field: code === 'EADDRINUSE' ? 'PORT' : 'HOST',
      found: config.port,
      hint: code === 'EADDRINUSE'
        ? `another process uses port ${config.port}: stop it, or set PORT to a free port (PORT=0 picks one)`
        : 'set HOST to an address of this machine (default 127.0.0.1) and PORT to a port you may bind',
      cause: err,
    });
  }
}

const USAGE = usageLine('start');

function parseMainArgs(argv: string[]): { configFile?: string; env: Record<string, string> } {
  let values: { config?: string; host?: string; port?: string; local?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { config: { type: 'string', short: 'c' }, host: { type: 'string' }, port: { type: 'string', short: 'p' }, local: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new TurnbridgeError('TB_USAGE', `${(err as Error).message}\n${USAGE}`);
  }
  const env: Record<string, string> = {};
  if (values.host) env.HOST = values.host;
  if (values.port) env.PORT = values.port;
  if (values.local) env.TURNBRIDGE_LOCAL = '1';
  return { configFile: values.config, env };
}

/** The bridge process: start, print the URL, stop cleanly on SIGTERM/SIGINT (a second signal exits at once). */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  let running: RunningTurnbridge;
  try {
    const args = parseMainArgs(argv);
    // The environment with .env under it, as every command reads it (config/bridge-env.ts); the
    // options (--host, --port, --local) as the variables they stand for. Nothing is written to process.env.
    const agents = agentEnv(processEnv());
    running = await startTurnbridge({ configFile: args.configFile, agentEnv: agents, env: { ...agents, ...args.env } });
  } catch (err) {
    if (isTurnbridgeError(err)) {
      const e = err as TurnbridgeError;
      const { text, fix } = problemLines(e);
      process.stderr.write(`turnbridge: ${e.code === 'TB_CONFIG_INVALID' ? 'configuration error: ' : ''}${text}\n`);
      if (fix) process.stderr.write(`  fix: ${fix}\n`);
      else if (e.code === 'TB_CONFIG_INVALID') process.stderr.write('  fix: see turnbridge.example.yaml and .env.example\n');
      process.exit(e.code === 'TB_USAGE' ? 2 : 1);
    }
    throw err;
  }

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      process.stderr.write(`turnbridge: second ${signal}, exiting now\n`);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    signalled = true;
    running.bridge.logger.info({ signal }, 'shutting down');
    running.shutdown().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  onParentGone(() => {
    running.bridge.logger.info('the command that started the bridge is gone');
    onSignal('SIGTERM');
  });
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main().catch((err: unknown) => {
    process.stderr.write(`turnbridge: failed to start: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  });
}
