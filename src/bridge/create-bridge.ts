import type { BridgeConfig } from '../config/types.js';
import { randomUUID } from 'node:crypto';
import { chownSync, existsSync, statSync } from 'node:fs';
import { createDelivery as defaultCreateDelivery } from '../delivery/index.js';
import type { Delivery } from '../delivery/types.js';
import type { Surface } from '../delivery/surface.js';
import type { Logger } from '../log.js';
import type { ConversationGate, ReplicaBus, SharedSlots } from '../replicas/index.js';
import { loadProfile as defaultLoadProfile } from '../profile/index.js';
import { launchPolicyOf, run as defaultRun } from '../runner/index.js';
import { acceptMessage, type BridgeContext, conversationPlaces, createConversationActivities, createTurnQueue, createTurnRegistry, handleRerunAction, handleStopAction, holdsSlot, INTERRUPTED_MESSAGE, isOver, prepareRoots, pruneWorktrees, type PruneReport, recover, type RecoveryReport, type RunTurn, stopConversation, type Turn } from './turns/index.js';
import { checkAccess, createProfileCache, type ProfileLoader, routeMessage } from './access/index.js';
import type { Bridge, BridgeStats, PlatformStatus } from './types.js';
import { createActionForwarding, type LocalHandlers } from './action-forwarding.js';
import { createMetrics, type Metrics } from './metrics.js';
import { createPermissionBroker } from './approvals/index.js';
import type { RedisConnections } from '../redis/index.js';
import { conversationKey, createState, ensurePrivateDir, openState, privateDirMode, type State, type StateStore } from '../state/index.js';
import { BoundedMap } from '../bounded-map.js';

/** How often idle worktrees are looked for. */
const PRUNE_EVERY_MS = 3_600_000;

export interface CreateBridgeOptions {
  config: BridgeConfig;
  logger: Logger;
  /**
   * The backend the bridge's state is opened on (default from the configuration: SQLite under
   * dataDir, or Redis; tests give an in-memory one). The bridge closes it at shutdown.
   */
  store?: StateStore;
  /** This replica's id, recorded with what it holds (default 'main'). */
  replicaId?: string;
  /** With REDIS_URL: the process's Redis connections, which the state uses too (default: its own). */
  redis?: RedisConnections;
  /** Default: runner run(). */
  runTurn?: RunTurn;
  /** The environment agents are started in, their profiles' ${VAR} read from it (main.ts: the process's with ./.env under it). */
  agentEnv?: NodeJS.ProcessEnv;
  /** Default: profile loadProfile(). */
  loadProfile?: ProfileLoader;
  now?: () => number;
  /** Turn, prompt and stop ids (default random UUIDs). */
  idFactory?: () => string;
  metrics?: Metrics;
  /** Default: delivery createDelivery(). */
  createDelivery?: (surface: Surface, opts: { logger: Logger; now?: () => number }) => Delivery & { close?(): Promise<void> };
  /** How long a claimed event id is remembered for dedupe (default 15 minutes). */
  dedupe?: { ttlMs?: number };
  /** How long a thread the bot answered is remembered as its own (default 90 days). */
  ownThreadTtlMs?: number;
  /**
   * Hold messages and clicks until recover() has run (main.ts): nothing new is served before what
   * a crashed run left is finished. Default false (tests that never call recover()).
   */
  recoverAtStart?: boolean;
  /** Several replicas: clicks and Stops this replica does not hold are forwarded over it. */
  bus?: ReplicaBus;
  /** Several replicas: one turn at a time per conversation across all of them. */
  gate?: ConversationGate;
  /** Several replicas, opt-in: a turn also needs one of these slots shared by all (sharedMaxConcurrent). */
  sharedSlots?: SharedSlots;
}

/** The Bridge plus what operations need: metrics for /metrics. */
export interface CoreBridge extends Bridge {
  readonly metrics: Metrics;
  readonly state: State;
  /**
   * Finish what a previous run of this replica left (crash recovery), then serve events. Call
   * once the surfaces are attached and their platforms started.
   */
  recover(): Promise<RecoveryReport>;
  /**
   * Several replicas: run the crash recovery for a departed replica's ledger here (its replies
   * and prompts finalized, its queued turns run by this one). Waits for this replica's own
   * recovery first; the caller holds the takeover claim (replicas/takeover.ts).
   */
  takeOver(holder: string): Promise<RecoveryReport>;
  /** For /readyz: 'starting' until recovery is done (with recoverAtStart). */
  readiness(): PlatformStatus;
  /**
   * Remove the worktrees idle past their worktree_idle_days with no uncommitted changes (run after
   * recovery and then hourly, when a route has worktree: true).
   */
  pruneWorktrees(): Promise<PruneReport>;
}

/**
 * The roots of the conversations' places exist before the first turn, the bridge's (0700; 0710
 * for run_as's group): each conversation's own are made under them (conversation-dirs.ts).
 */
function prepareWorkspace(config: BridgeConfig, logger: Logger): void {
  const places = conversationPlaces(config);
  try {
    ensurePrivateDir(config.dataDir, privateDirMode(config.agent.runAs));
    // A workspace root an older version gave to run_as (one workspace for all) is the bridge's again.
    const runAs = config.agent.runAs;
    if (runAs && existsSync(places.workspaces) && statSync(places.workspaces).uid === runAs.uid) chownSync(places.workspaces, process.getuid!(), runAs.gid);
    const done = prepareRoots(places);
    for (const [root, outcome] of Object.entries(done)) {
      const path = places[root as keyof typeof done];
      const what = root === 'homes' ? 'the conversations\' HOMEs root' : 'the agent workspace root';
      if (outcome === 'created') logger.info({ path }, `${what} created`);
      if (outcome === 'tightened') logger.warn({ path }, `${what} was open to other users: tightened`);
      if (outcome === 'not-ours') logger.warn({ path }, `${what} belongs to another user: its mode is left as it is (turnbridge doctor)`);
    }
  } catch (err) {
    logger.error({ err, workspace: places.workspaces, homes: places.homes }, 'could not create the agent workspace root (TURNBRIDGE_WORKSPACE / agent.workspace) or the HOMEs root (data dir)');
  }
}

export function createBridge(opts: CreateBridgeOptions): CoreBridge {
  const { config } = opts;
  const logger = opts.logger;
  const now = opts.now ?? Date.now;
  const idFactory = opts.idFactory ?? (() => randomUUID());
  const makeDelivery = opts.createDelivery ?? defaultCreateDelivery;
  const metrics = opts.metrics ?? createMetrics();
  const holder = opts.replicaId ?? 'main';
  const stateOptions = { holder, now, audit: { metrics } };
  const state: State = opts.store
    ? openState(opts.store, { ...stateOptions, logger })
    : createState(config, logger, { ...stateOptions, ...(opts.redis ? { redis: opts.redis } : {}), onRejected: (r) => metrics.untrusted('state', r.reason) });
  const dedupeTtlMs = opts.dedupe?.ttlMs ?? 15 * 60_000;
  let promptWrites: Promise<void> = Promise.resolve();
  let recovery: { state: 'waiting' | 'running' | 'done'; promise?: Promise<RecoveryReport> } = { state: opts.recoverAtStart ? 'waiting' : 'done' };
  let openGate!: () => void;
  const gate = opts.recoverAtStart ? new Promise<void>((r) => (openGate = r)) : Promise.resolve();
  prepareWorkspace(config, logger);
  const profileLoader: ProfileLoader = opts.loadProfile ?? ((path) => defaultLoadProfile(path, { logger }));

  const surfaces = new Map<string, { surface: Surface; delivery: Delivery & { close?(): Promise<void> } }>();
  const ctx: BridgeContext = {
    config,
    logger,
    state,
    ownThreadTtlMs: opts.ownThreadTtlMs ?? 90 * 24 * 3600_000,
    wayInShown: new BoundedMap(10_000),
    runTurn: opts.runTurn ?? defaultRun,
    ...(opts.agentEnv ? { agentEnv: opts.agentEnv } : {}),
    broker: createPermissionBroker({
      approvers: config.approvers,
      admins: config.access.admins,
      logger,
      idFactory: () => `perm-${idFactory()}`,
      rules: state.rules,
      audit: state.audit,
      now,
      record: {
        // One chain for prompt records: "posting" is stored before "shown" replaces it, and that
        // before "settled" removes it.
        posting: (p) => {
          promptWrites = promptWrites.then(() => state.ledger.put({ kind: 'posting', holder, ...p }));
          return promptWrites;
        },
        shown: (p) => {
          promptWrites = promptWrites.then(() => state.ledger.put({ kind: 'prompt', holder, ...p }));
        },
        settled: (id) => {
          promptWrites = promptWrites.then(() => state.ledger.remove(id)).then(() => undefined);
        },
      },
    }),
    queue: createTurnQueue<Turn>({
      maxConcurrent: config.maxConcurrent,
      queueDepth: config.queueDepth,
      runningPerUser: config.limits.runningPerUser,
      waitingPerUser: config.limits.waitingPerUser,
      maxWaiting: config.limits.waiting,
      maxParked: config.limits.promptWaits,
      ...(opts.sharedSlots ? { permits: opts.sharedSlots } : {}),
    }),
    launchPolicy: launchPolicyOf(config.agent),
    metrics,
    now,
    idFactory,
    profile: createProfileCache(profileLoader, logger),
    surfaces,
    turns: createTurnRegistry<Turn>(),
    activity: createConversationActivities(),
    ...(opts.gate && opts.bus ? { gate: { gate: opts.gate, replicaId: opts.bus.id } } : {}),
    closing: false,
    updateGauges() {
      metrics.setQueueDepth(ctx.queue.waiting);
      metrics.setActiveAgents(ctx.queue.running);
      metrics.setParkedAgents(ctx.queue.parked);
    },
  };
  const sharedSlots = opts.sharedSlots;
  if (sharedSlots) metrics.watchSharedSlots(() => ({ held: sharedSlots.held, shared: sharedSlots.state === 'shared' }));
  // A shared slot was acquired for a waiting turn (or Redis went away: the local cap decides).
  sharedSlots?.onAvailable(() => {
    ctx.queue.pump();
    ctx.updateGauges();
  });
  let shutdownPromise: Promise<void> | undefined;

  // Idle worktrees go after recovery and then every hour (worktree.ts).
  let pruning: NodeJS.Timeout | undefined;
  const prune = () => pruneWorktrees(ctx).catch((err: unknown) => {
    logger.warn({ err }, 'pruning idle worktrees failed');
    return { removed: [], kept: [] };
  });
  function startPruning(): void {
    if (pruning || !config.routes.some((r) => r.worktree)) return;
    void prune();
    pruning = setInterval(() => void prune(), PRUNE_EVERY_MS);
    pruning.unref();
  }

  async function shutdown(graceMs = config.shutdownGraceSecs * 1000): Promise<void> {
    ctx.closing = true;
    clearInterval(pruning);
    const turns = ctx.turns.all();
    logger.info({ running: ctx.queue.running, queued: ctx.queue.waiting }, 'bridge shutting down');
    for (const t of turns) ctx.turns.interrupt(t);
    // Turns that have not started are handed over, not failed: they stay queued in the ledger for
    // another replica (takeover) or this one's next start (recovery) to run.
    for (const t of ctx.queue.drain()) t.handOver();
    ctx.broker.expireAll();
    for (const t of turns) if (holdsSlot(t.phase)) t.abort.abort(new Error('the bridge is shutting down'));
    ctx.updateGauges();
    let timer: NodeJS.Timeout | undefined;
    const all = Promise.allSettled(turns.map((t) => t.done)).then(() => 'done' as const);
    const outcome = await Promise.race([all, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), graceMs)))]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      const left = turns.filter((t) => !isOver(t.phase));
      logger.warn({ turns: left.length, graceMs }, 'turns still running after the grace period; finalizing their replies anyway');
      await Promise.allSettled(left.map((t) => t.finishReply({ kind: 'interrupted', message: INTERRUPTED_MESSAGE })));
    }
    await ctx.broker.idle();
    await promptWrites;
    for (const { delivery } of surfaces.values()) await delivery.close?.().catch((err: unknown) => logger.warn({ err }, 'delivery close failed'));
    await state.idle();
    await state.close().catch((err: unknown) => logger.warn({ err }, 'state close failed'));
    logger.info('bridge stopped');
  }

  const local: LocalHandlers = {
    holds: (id) => ctx.turns.get(id) !== undefined || ctx.broker.holds(id),
    async action(ev) {
      if (ev.action === 'stop') await handleStopAction(ctx, ev.id, ev.user, ev.platform, ev.notifyPrivately);
      else if (ev.action === 'rerun') await handleRerunAction(ctx, ev.id, ev.user, ev.platform, ev.notifyPrivately);
      else await ctx.broker.handleAction(ev);
    },
    form: (ev) => ctx.broker.handleFormSubmit(ev),
  };
  const forwarding = opts.bus ? createActionForwarding(opts.bus, local, logger) : undefined;

  const bridge: CoreBridge = {
    logger,
    metrics,
    state,
    attach(surface) {
      const delivery = makeDelivery(surface, { logger: logger.child({ platform: surface.platform }), now });
      ctx.surfaces.set(surface.platform, { surface, delivery });
      logger.info({ platform: surface.platform }, 'surface attached');
    },
    async handleMessage(msg) {
      await gate;
      if (!msg.claimed && !(await bridge.claimEvent(msg.platform, msg.eventId))) {
        logger.debug({ platform: msg.platform, eventId: msg.eventId }, 'duplicate event dropped');
        metrics.rejected('duplicate');
        return;
      }
      await acceptMessage(ctx, msg);
    },
    async handleAction(ev) {
      const notify = (text: string) =>
        ev.notifyPrivately(text).catch((err: unknown) => logger.warn({ err, platform: ev.platform }, 'could not notify the clicker'));
      await gate;
      const clicked = { ...ev, notifyPrivately: notify };
      if (await forwarding?.action(clicked)) return;
      await local.action(clicked);
    },
    async handleStop(ev) {
      const notify = (text: string) =>
        ev.notifyPrivately(text).catch((err: unknown) => logger.warn({ err, platform: ev.platform }, 'could not notify the person who pressed Stop'));
      await gate;
      const pressed = { ...ev, notifyPrivately: notify };
      return stopConversation(ctx, pressed, async (id) => {
        // As a click on the turn's own Stop button: forwarded to the replica holding it.
        const click = { platform: ev.platform, action: 'stop' as const, id, user: ev.user, notifyPrivately: notify };
        if (await forwarding?.action(click)) return;
        await local.action(click);
      });
    },
    async admits(msg) {
      const full = { ...msg, text: '', attachments: [], eventId: '', receivedAt: 0 };
      return (await checkAccess(config.access, state.grants, full, routeMessage(config, full).route)).ok;
    },
    async handleFormSubmit(ev) {
      const notify = (text: string) =>
        ev.notifyPrivately(text).catch((err: unknown) => logger.warn({ err, platform: ev.platform }, 'could not notify the submitter'));
      await gate;
      const submitted = { ...ev, notifyPrivately: notify };
      return (await forwarding?.form(submitted)) ?? local.form(submitted);
    },
    claimEvent(platform, id, ...more) {
      // A failing store answers true: a rare repeat is better than a lost message.
      return state.events.claim([id, ...more].map((k) => `${platform}:${k}`), dedupeTtlMs);
    },
    isClaimed(platform, id) {
      return state.events.claimed(`${platform}:${id}`);
    },
    ownsThread(platform, conversation) {
      return state.threads.owns(conversationKey(platform, conversation));
    },
    recover() {
      if (recovery.promise) return recovery.promise;
      recovery = { state: 'running' };
      recovery.promise = recover(ctx)
        .catch((err: unknown) => {
          logger.error({ err }, 'crash recovery failed; serving events anyway');
          return { agentsEnded: 0, prompts: 0, replies: 0, outboxes: 0, queued: 0, left: -1, durationMs: 0 };
        })
        .finally(() => {
          recovery.state = 'done';
          openGate?.();
          startPruning();
        });
      return recovery.promise;
    },
    async takeOver(departed) {
      await gate;
      if (ctx.closing) return { agentsEnded: 0, prompts: 0, replies: 0, outboxes: 0, queued: 0, left: 1, durationMs: 0 };
      return recover(ctx, { holder: departed });
    },
    pruneWorktrees: prune,
    readiness(): PlatformStatus {
      return recovery.state === 'done' ? { state: 'ready' } : { state: 'starting' };
    },
    shutdown(graceMs) {
      shutdownPromise ??= shutdown(graceMs);
      return shutdownPromise;
    },
    stats(): BridgeStats {
      return { activeAgents: ctx.queue.running, parkedAgents: ctx.queue.parked, queued: ctx.queue.waiting, turnsByOutcome: metrics.turnsByOutcome() };
    },
  };
  return bridge;
}
