import type { DeliveryStats } from '../delivery/types.js';

/** Turn duration histogram buckets, in seconds. */
export const DURATION_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800] as const;

/** Permission decision latency buckets, in seconds (a rule answers at once; people take seconds to minutes). */
export const DECISION_BUCKETS = [0.01, 1, 5, 15, 30, 60, 120, 300, 600, 1800] as const;

/** Counters and gauges the bridge keeps; render() gives Prometheus text format (served at /metrics). */
export interface Metrics {
  /** A turn ended; durationMs absent when it never ran (stopped or interrupted while queued). */
  turnFinished(outcome: string, durationMs?: number): void;
  /** A message refused before it became a turn: busy, refused, profile_error, duplicate. */
  rejected(reason: string): void;
  setQueueDepth(n: number): void;
  setActiveAgents(n: number): void;
  deliveryStats(platform: string, stats: DeliveryStats): void;
  /** Time a turn waited for its slot. */
  queueWait(ms: number): void;
  /** A permission request was answered (allow / deny) by a person, a rule, a timeout or an expiry. */
  permissionDecision(decision: string, source: string, latencyMs: number): void;
  turnsByOutcome(): Record<string, number>;
  render(): string;
}

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const num = (n: number) => (Number.isFinite(n) ? String(Math.round(n * 1e6) / 1e6) : n > 0 ? '+Inf' : '-Inf');

export function createMetrics(): Metrics {
  const turns = new Map<string, number>();
  const rejections = new Map<string, number>();
  const buckets: number[] = DURATION_BUCKETS.map(() => 0);
  let durCount = 0;
  let durSum = 0;
  let waitCount = 0;
  let waitSum = 0;
  let queueDepth = 0;
  let activeAgents = 0;
  const perPlatform = new Map<string, { posts: number; edits: number; rateLimitWaits: number; replies: number }>();
  const decisions = new Map<string, number>();
  const decisionBuckets: number[] = DECISION_BUCKETS.map(() => 0);
  let decisionCount = 0;
  let decisionSum = 0;
  const inc = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

  function counter(lines: string[], name: string, help: string, label: string, values: Map<string, number>): void {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
    for (const [k, v] of [...values].sort(([a], [b]) => a.localeCompare(b))) lines.push(`${name}{${label}="${esc(k)}"} ${v}`);
  }

  return {
    turnFinished(outcome, durationMs) {
      inc(turns, outcome);
      if (durationMs === undefined) return;
      const s = durationMs / 1000;
      durCount++;
      durSum += s;
      DURATION_BUCKETS.forEach((le, i) => {
        if (s <= le) buckets[i]!++;
      });
    },
    rejected(reason) {
      inc(rejections, reason);
    },
    setQueueDepth(n) {
      queueDepth = n;
    },
    setActiveAgents(n) {
      activeAgents = n;
    },
    deliveryStats(platform, stats) {
      const p = perPlatform.get(platform) ?? { posts: 0, edits: 0, rateLimitWaits: 0, replies: 0 };
      p.posts += stats.posts;
      p.edits += stats.edits;
      p.rateLimitWaits += stats.rateLimitWaits;
      p.replies++;
      perPlatform.set(platform, p);
    },
    queueWait(ms) {
      waitCount++;
      waitSum += ms / 1000;
    },
    permissionDecision(decision, source, latencyMs) {
      inc(decisions, `decision="${esc(decision)}",source="${esc(source)}"`);
      const sec = Math.max(0, latencyMs) / 1000;
      decisionCount++;
      decisionSum += sec;
      DECISION_BUCKETS.forEach((le, i) => {
        if (sec <= le) decisionBuckets[i]!++;
      });
    },
    turnsByOutcome() {
      return Object.fromEntries(turns);
    },
    render() {
      const lines: string[] = [];
      counter(lines, 'turnbridge_turns_total', 'Turns finished, by outcome.', 'outcome', turns);
      counter(lines, 'turnbridge_messages_rejected_total', 'Messages refused before they became a turn, by reason.', 'reason', rejections);
      lines.push('# HELP turnbridge_turn_duration_seconds Time from a turn start to its end.', '# TYPE turnbridge_turn_duration_seconds histogram');
      DURATION_BUCKETS.forEach((le, i) => lines.push(`turnbridge_turn_duration_seconds_bucket{le="${le}"} ${buckets[i]}`));
      lines.push(`turnbridge_turn_duration_seconds_bucket{le="+Inf"} ${durCount}`);
      lines.push(`turnbridge_turn_duration_seconds_sum ${num(durSum)}`, `turnbridge_turn_duration_seconds_count ${durCount}`);
      lines.push('# HELP turnbridge_queue_wait_seconds Time turns waited for a free agent slot.', '# TYPE turnbridge_queue_wait_seconds summary');
      lines.push(`turnbridge_queue_wait_seconds_sum ${num(waitSum)}`, `turnbridge_queue_wait_seconds_count ${waitCount}`);
      lines.push('# HELP turnbridge_queue_depth Turns waiting to start.', '# TYPE turnbridge_queue_depth gauge', `turnbridge_queue_depth ${queueDepth}`);
      lines.push('# HELP turnbridge_active_agents Agent processes running now.', '# TYPE turnbridge_active_agents gauge', `turnbridge_active_agents ${activeAgents}`);
      lines.push('# HELP turnbridge_permission_decisions_total Permission requests answered, by decision and by how.', '# TYPE turnbridge_permission_decisions_total counter');
      for (const [labels, v] of [...decisions].sort(([a], [b]) => a.localeCompare(b))) lines.push(`turnbridge_permission_decisions_total{${labels}} ${v}`);
      lines.push('# HELP turnbridge_permission_decision_seconds Time from a permission request to its decision.', '# TYPE turnbridge_permission_decision_seconds histogram');
      DECISION_BUCKETS.forEach((le, i) => lines.push(`turnbridge_permission_decision_seconds_bucket{le="${le}"} ${decisionBuckets[i]}`));
      lines.push(`turnbridge_permission_decision_seconds_bucket{le="+Inf"} ${decisionCount}`);
      lines.push(`turnbridge_permission_decision_seconds_sum ${num(decisionSum)}`, `turnbridge_permission_decision_seconds_count ${decisionCount}`);
      const platforms = [...perPlatform].sort(([a], [b]) => a.localeCompare(b));
      const series = [
        ['turnbridge_message_posts_total', 'Messages posted by live replies, by platform.', 'posts'],
        ['turnbridge_message_edits_total', 'Message edits sent by live replies, by platform.', 'edits'],
        ['turnbridge_rate_limit_waits_total', 'Platform rate-limit answers (429) honoured, by platform.', 'rateLimitWaits'],
        ['turnbridge_replies_total', 'Live replies finished, by platform.', 'replies'],
      ] as const;
      for (const [name, help, field] of series) {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
        for (const [platform, p] of platforms) lines.push(`${name}{platform="${esc(platform)}"} ${p[field]}`);
      }
      return `${lines.join('\n')}\n`;
    },
  };
}
