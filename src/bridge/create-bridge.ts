import { randomUUID } from 'node:crypto';
import { chownSync, existsSync, mkdirSync } from 'node:fs';
import Keyv from 'keyv';
import { createDelivery as defaultCreateDelivery } from '../delivery/index.js';
import type { Delivery } from '../delivery/types.js';
import type { Surface } from '../delivery/surface.js';
import type { Logger } from '../log.js';
import type { ConversationGate, ReplicaBus } from '../replicas/index.js';
import { loadProfile as defaultLoadProfile } from '../profile/index.js';
import { run as defaultRun } from '../runner/index.js';
import { acceptMessage } from './accept-message.js';
import { checkAccess } from './access.js';
import { routeMessage } from './routing.js';
import { createAccessGrants, type AccessGrants } from './access-grants.js';
import type { Bridge, BridgeConfig, BridgeStats } from './api.js';
import { createActionForwarding, type LocalHandlers } from './action-forwarding.js';
import type { BridgeContext, RunTurn } from './context.js';
import { createAuditTrail, type AuditTrail } from './audit.js';
import { createDeduper } from './dedupe.js';
import { createKv, type KvStore } from './kv.js';
import { createMetrics, type Metrics } from './metrics.js';
import { INTERRUPTED_MESSAGE } from './outcome.js';
import { createPermissionBroker } from './permission-broker.js';
import { createProfileCache, type ProfileLoader } from './profile-cache.js';
import { createConversationNotices, createRuleStore } from './rule-store.js';
import { buildKeyv, createSessionStore, guardSessionStore, type SessionStore } from './session-store.js';
import { handleStopAction } from './stop-control.js';
import type { Turn } from './turn.js';
import { createTurnQueue } from './turn-queue.js';

export interface CreateBridgeOptions {
  config: BridgeConfig;
  logger: Logger;
  /** Default: createSessionStore(config, logger). */
  store?: SessionStore;
  /** Default: createAccessGrants(config, logger) (same backend as the sessions). */
  grants?: AccessGrants;
  /**
   * Rules, notices and the audit trail. Default: the session store's keyv (the embedded file or
   * Redis); with an injected `store` and no `kv`, an in-memory keyv.
   */
  kv?: KvStore;
  /** Default: runner run(). */
  runTurn?: RunTurn;
  /** Default: profile loadProfile(). */
  loadProfile?: ProfileLoader;
  now?: () => number;
  /** Turn, prompt and stop ids (default random UUIDs). */
  idFactory?: () => string;
  metrics?: Metrics;
  /** Default: delivery createDelivery(). */
  createDelivery?: (surface: Surface, opts: { logger: Logger; now?: () => number }) => Delivery & { close?(): Promise<void> };
  /** How many event ids are remembered for dedupe (default 10,000, 15 minutes). */
  dedupe?: { max?: number; ttlMs?: number };
  /** Several replicas: clicks and Stops this replica does not hold are forwarded over it. */
  bus?: ReplicaBus;
  /** Several replicas: one turn at a time per conversation across all of them. */
  gate?: ConversationGate;
}

/** The Bridge plus what operations need: metrics for /metrics. */
export interface CoreBridge extends Bridge {
  readonly metrics: Metrics;
  readonly store: SessionStore;
  readonly grants: AccessGrants;
  readonly audit: AuditTrail;
}

/** The agent workspace exists before the first turn (and belongs to run_as when set). */
function prepareWorkspace(config: BridgeConfig, logger: Logger): void {
  const ws = config.agent.workspace;
  if (existsSync(ws)) return;
  try {
    mkdirSync(ws, { recursive: true, mode: 0o700 });
    if (config.agent.runAs) chownSync(ws, config.agent.runAs.uid, config.agent.runAs.gid);
    logger.info({ workspace: ws }, 'agent workspace created');
  } catch (err) {
    logger.error({ err, workspace: ws }, 'could not create the agent workspace (TURNBRIDGE_WORKSPACE / agent.workspace)');
  }
}

export function createBridge(opts: CreateBridgeOptions): CoreBridge {
  const { config } = opts;
  const logger = opts.logger;
  const now = opts.now ?? Date.now;
  const idFactory = opts.idFactory ?? (() => randomUUID());
  const makeDelivery = opts.createDelivery ?? defaultCreateDelivery;
  const metrics = opts.metrics ?? createMetrics();
  const dedupe = createDeduper({ ...opts.dedupe, now });
  const keyv = opts.store ? undefined : buildKeyv(config, logger.child({ component: 'session-store' }), 100);
  const store = opts.store ? guardSessionStore(opts.store, logger) : createSessionStore(config, logger, { keyv });
  const kv = opts.kv ?? createKv(keyv ?? new Keyv(), logger);
  const rules = createRuleStore(kv);
  const audit = createAuditTrail({ kv, logger, metrics });
  const grants = opts.grants ?? createAccessGrants(config, logger);
  prepareWorkspace(config, logger);
  const profileLoader: ProfileLoader = opts.loadProfile ?? ((path) => defaultLoadProfile(path, { logger }));

  const surfaces = new Map<string, { surface: Surface; delivery: Delivery & { close?(): Promise<void> } }>();
  const ctx: BridgeContext = {
    config,
    logger,
    store,
    grants,
    wayInShown: new Map(),
    runTurn: opts.runTurn ?? defaultRun,
    broker: createPermissionBroker({ approvers: config.approvers, admins: config.access.admins, logger, idFactory: () => `perm-${idFactory()}`, rules, audit, now }),
    queue: createTurnQueue<Turn>({
      maxConcurrent: config.maxConcurrent,
      queueDepth: config.queueDepth,
      runningPerUser: config.limits.runningPerUser,
      waitingPerUser: config.limits.waitingPerUser,
      maxWaiting: config.limits.waiting,
      maxParked: config.limits.promptWaits,
    }),
    launchPolicy: {
      defaultCwd: config.agent.workspace,
      protectedPaths: config.agent.protectedPaths,
      bridgeDir: config.agent.protectedPaths[0],
      sandbox: config.agent.sandbox,
      ...(config.agent.runAs ? { runAs: config.agent.runAs } : {}),
    },
    metrics,
    now,
    idFactory,
    profile: createProfileCache(profileLoader, logger),
    surfaces,
    turns: new Map(),
    ended: new Map(),
    generations: new Map(),
    rules,
    notices: createConversationNotices(kv),
    audit,
    ...(opts.gate && opts.bus ? { gate: { gate: opts.gate, replicaId: opts.bus.id } } : {}),
    closing: false,
    updateGauges() {
      metrics.setQueueDepth(ctx.queue.waiting);
      metrics.setActiveAgents(ctx.queue.running);
    },
  };
  let shutdownPromise: Promise<void> | undefined;

  async function shutdown(graceMs = config.shutdownGraceSecs * 1000): Promise<void> {
    ctx.closing = true;
    const turns = [...ctx.turns.values()];
    logger.info({ running: ctx.queue.running, queued: ctx.queue.waiting }, 'bridge shutting down');
    for (const t of turns) t.interrupted = true;
    for (const t of ctx.queue.drain()) t.cancelWaiting();
    ctx.broker.expireAll();
    for (const t of turns) if (t.state === 'running') t.abort.abort(new Error('the bridge is shutting down'));
    ctx.updateGauges();
    let timer: NodeJS.Timeout | undefined;
    const all = Promise.allSettled(turns.map((t) => t.done)).then(() => 'done' as const);
    const outcome = await Promise.race([all, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), graceMs)))]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      const left = turns.filter((t) => t.state !== 'done');
      logger.warn({ turns: left.length, graceMs }, 'turns still running after the grace period; finalizing their replies anyway');
      await Promise.allSettled(left.map((t) => t.finishReply({ kind: 'interrupted', message: INTERRUPTED_MESSAGE })));
    }
    await ctx.broker.idle();
    await audit.idle();
    for (const { delivery } of surfaces.values()) await delivery.close?.().catch((err: unknown) => logger.warn({ err }, 'delivery close failed'));
    await store.close();
    await grants.close();
    logger.info('bridge stopped');
  }

  const local: LocalHandlers = {
    holds: (id) => ctx.turns.has(id) || ctx.broker.holds(id),
    async action(ev) {
      if (ev.action === 'stop') await handleStopAction(ctx, ev.id, ev.user, ev.platform, ev.notifyPrivately);
      else await ctx.broker.handleAction(ev);
    },
    form: (ev) => ctx.broker.handleFormSubmit(ev),
  };
  const forwarding = opts.bus ? createActionForwarding(opts.bus, local, logger) : undefined;

  const bridge: CoreBridge = {
    logger,
    metrics,
    store,
    grants,
    audit,
    attach(surface) {
      const delivery = makeDelivery(surface, { logger: logger.child({ platform: surface.platform }), now });
      ctx.surfaces.set(surface.platform, { surface, delivery });
      logger.info({ platform: surface.platform }, 'surface attached');
    },
    async handleMessage(msg) {
      if (!dedupe.firstSeen(`${msg.platform}:${msg.eventId}`)) {
        logger.debug({ platform: msg.platform, eventId: msg.eventId }, 'duplicate event dropped');
        metrics.rejected('duplicate');
        return;
      }
      await acceptMessage(ctx, msg);
    },
    async handleAction(ev) {
      const notify = (text: string) =>
        ev.notifyPrivately(text).catch((err: unknown) => logger.warn({ err, platform: ev.platform }, 'could not notify the clicker'));
      const clicked = { ...ev, notifyPrivately: notify };
      if (await forwarding?.action(clicked)) return;
      await local.action(clicked);
    },
    async admits(msg) {
      const full = { ...msg, text: '', attachments: [], eventId: '', receivedAt: 0 };
      return (await checkAccess(config.access, grants, full, routeMessage(config, full).route)).ok;
    },
    async handleFormSubmit(ev) {
      const notify = (text: string) =>
        ev.notifyPrivately(text).catch((err: unknown) => logger.warn({ err, platform: ev.platform }, 'could not notify the submitter'));
      const submitted = { ...ev, notifyPrivately: notify };
      return (await forwarding?.form(submitted)) ?? local.form(submitted);
    },
    async hasConversation(platform, conversation) {
      return (await store.get(conversation, platform)) !== undefined;
    },
    shutdown(graceMs) {
      shutdownPromise ??= shutdown(graceMs);
      return shutdownPromise;
    },
    stats(): BridgeStats {
      return { activeAgents: ctx.queue.running, queued: ctx.queue.waiting, turnsByOutcome: metrics.turnsByOutcome() };
    },
  };
  return bridge;
}
