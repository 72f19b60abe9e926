import { Counter, Gauge, Histogram, Registry, Summary, collectDefaultMetrics } from 'prom-client';
import type { DeliveryStats } from '../delivery/types.js';

/** Turn duration histogram buckets, in seconds. */
const DURATION_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800] as const;

/** Permission decision latency buckets, in seconds (a rule answers at once; people take seconds to minutes). */
const DECISION_BUCKETS = [0.01, 1, 5, 15, 30, 60, 120, 300, 600, 1800] as const;

/** Counters and gauges the bridge keeps; render() gives Prometheus text format (served at /metrics). */
export interface Metrics {
  /** A turn ended; durationMs absent when it never ran (stopped or interrupted while queued). */
  turnFinished(outcome: string, durationMs?: number): void;
  /** A message refused before it became a turn: busy, refused, profile_error, duplicate. */
  rejected(reason: string): void;
  setQueueDepth(n: number): void;
  setActiveAgents(n: number): void;
  setParkedAgents(n: number): void;
  /** Several replicas with a shared cap: read at each scrape, the slots this replica holds in Redis and whether the cap is shared (false: Redis away, local cap only). */
  watchSharedSlots(read: () => { held: number; shared: boolean }): void;
  deliveryStats(platform: string, stats: DeliveryStats): void;
  /** Time a turn waited for its slot. */
  queueWait(ms: number): void;
  /** A permission request was answered (allow / deny) by a person, a rule, a timeout or an expiry. */
  permissionDecision(decision: string, source: string, latencyMs: number): void;
  /**
   * Something read from Redis failed the bus key's check and was dropped: a bus message
   * (unsigned, forged, malformed, stale, replayed) or a state record (unsigned, forged).
   */
  untrusted(source: 'bus' | 'state', reason: string): void;
  turnsByOutcome(): Record<string, number>;
  /** Prometheus text format (version 0.0.4) of every metric in the registry. */
  render(): Promise<string>;
  /** The prom-client registry: a module adding its own metrics registers them here. */
  readonly registry: Registry;
  /** The Content-Type header for render()'s text. */
  readonly contentType: string;
}

export interface MetricsOptions {
  /**
   * prom-client's default Node metrics (process_*, nodejs_*: memory, CPU, event-loop lag, GC,
   * handles) that dashboards expect. Off by default so tests that build many bridges do not
   * each install a GC observer; the service (main.ts) turns it on.
   */
  processMetrics?: boolean;
}

/**
 * The bridge's metrics on a prom-client Registry of its own (not the global one, so two bridges
 * in one process, as in tests, never collide). Metric names are the ones /metrics served before
 * prom-client; the delivery series keep their `platform` label.
 */
export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const turns = new Counter({ name: 'turnbridge_turns_total', help: 'Turns finished, by outcome.', labelNames: ['outcome'], registers });
  const outcomes = new Map<string, number>();
  const rejections = new Counter({
    name: 'turnbridge_messages_rejected_total', help: 'Messages refused before they became a turn, by reason.', labelNames: ['reason'], registers,
  });
  const duration = new Histogram({
    name: 'turnbridge_turn_duration_seconds', help: 'Time from a turn start to its end.', buckets: [...DURATION_BUCKETS], registers,
  });
  // A summary without quantiles: _sum and _count only, as before.
  const wait = new Summary({ name: 'turnbridge_queue_wait_seconds', help: 'Time turns waited for a free agent slot.', percentiles: [], registers });
  const queueDepth = new Gauge({ name: 'turnbridge_queue_depth', help: 'Turns waiting to start.', registers });
  const activeAgents = new Gauge({ name: 'turnbridge_active_agents', help: 'Agent processes running now and holding a slot (parked ones are in turnbridge_parked_agents).', registers });
  const parkedAgents = new Gauge({
    name: 'turnbridge_parked_agents', help: 'Agent processes paused on a permission prompt: alive, but holding no slot (also while a decided one waits for a slot again).', registers,
  });
  const perPlatform = (name: string, help: string) => new Counter({ name, help, labelNames: ['platform'], registers });
  const posts = perPlatform('turnbridge_message_posts_total', 'Messages posted by live replies, by platform.');
  const edits = perPlatform('turnbridge_message_edits_total', 'Message edits sent by live replies, by platform.');
  const rateLimitWaits = perPlatform('turnbridge_rate_limit_waits_total', 'Platform rate-limit answers (429) honoured, by platform.');
  const replies = perPlatform('turnbridge_replies_total', 'Live replies finished, by platform.');
  // Names and buckets as issue #13 (approvals) defines them, so its calls land here unchanged.
  const decisions = new Counter({
    name: 'turnbridge_permission_decisions_total', help: 'Permission requests answered, by decision and by how.', labelNames: ['decision', 'source'], registers,
  });
  const decisionTime = new Histogram({
    name: 'turnbridge_permission_decision_seconds', help: 'Time from a permission request to its decision.', buckets: [...DECISION_BUCKETS], registers,
  });
  const untrusted = new Counter({
    name: 'turnbridge_untrusted_dropped_total',
    help: 'Bus messages and Redis records dropped because they were not signed with the bridge\'s key (TURNBRIDGE_BUS_KEY), by source and reason.',
    labelNames: ['source', 'reason'], registers,
  });

  return {
    registry,
    contentType: registry.contentType,
    turnFinished(outcome, durationMs) {
      turns.inc({ outcome });
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      if (durationMs !== undefined) duration.observe(durationMs / 1000);
    },
    rejected(reason) {
      rejections.inc({ reason });
    },
    setQueueDepth(n) {
      queueDepth.set(n);
    },
    setActiveAgents(n) {
      activeAgents.set(n);
    },
    setParkedAgents(n) {
      parkedAgents.set(n);
    },
    watchSharedSlots(read) {
      // Read when scraped: slots come and go in the background (acquired, handed back unused).
      new Gauge({ name: 'turnbridge_shared_slots_held', help: 'Slots of the cap shared by every replica (shared_max_concurrent) this replica holds now.', registers, collect() { this.set(read().held); } });
      new Gauge({
        name: 'turnbridge_shared_slots_shared', help: 'Shared cap on running turns: 1 = counted across replicas in Redis, 0 = Redis away, local max_concurrent only.', registers,
        collect() { this.set(read().shared ? 1 : 0); },
      });
    },
    deliveryStats(platform, stats) {
      posts.inc({ platform }, stats.posts);
      edits.inc({ platform }, stats.edits);
      rateLimitWaits.inc({ platform }, stats.rateLimitWaits);
      replies.inc({ platform });
    },
    queueWait(ms) {
      wait.observe(ms / 1000);
    },
    permissionDecision(decision, source, latencyMs) {
      decisions.inc({ decision, source });
      decisionTime.observe(Math.max(0, latencyMs) / 1000);
    },
    untrusted(source, reason) {
      untrusted.inc({ source, reason });
    },
    turnsByOutcome() {
      return Object.fromEntries(outcomes);
    },
    render() {
      return registry.metrics();
    },
  };
}
