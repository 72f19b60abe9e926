import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { createMetrics } from '../../../src/bridge/index.js';
import { createHttpServer } from '../../../src/http/index.js';
import { silentLogger } from '../../../src/log.js';

function family(all: PromFamily[], name: string): PromFamily {
  const f = all.find((x) => x.name === name);
  assert.ok(f, `no metric family ${name} in the scrape (have: ${all.map((x) => x.name).join(', ')})`);
  return f;
}
const valueOf = (f: PromFamily, labels: Record<string, string> = {}) =>
  Number(f.metrics.find((s) => JSON.stringify(s.labels ?? {}) === JSON.stringify(labels))?.value);

describe('metrics', () => {
  it('keeps the pre-prom-client names, types and labels, read back by a Prometheus text-format parser', async () => {
    const m = createMetrics();
    m.turnFinished('success', 400);
    m.turnFinished('success', 3000);
    m.turnFinished('error', 700_000);
    m.turnFinished('stopped');
    m.rejected('busy');
    m.setQueueDepth(3);
    m.setActiveAgents(2);
    m.setParkedAgents(1);
    m.queueWait(1500);
    m.deliveryStats('slack', { posts: 1, edits: 5, rateLimitWaits: 1, parts: 1 });
    m.deliveryStats('slack', { posts: 2, edits: 3, rateLimitWaits: 0, parts: 2 });
    m.deliveryStats('discord', { posts: 1, edits: 1, rateLimitWaits: 0, parts: 1 });
    m.permissionDecision('allow', 'person', 4000);
    m.permissionDecision('deny', 'timeout', 600_000);
    const all = parsePrometheusTextFormat(await m.render());

    const turns = family(all, 'turnbridge_turns_total');
    assert.equal(turns.type, 'COUNTER');
    assert.equal(valueOf(turns, { outcome: 'success' }), 2);
    assert.equal(valueOf(turns, { outcome: 'error' }), 1);
    assert.equal(valueOf(turns, { outcome: 'stopped' }), 1);
    assert.equal(valueOf(family(all, 'turnbridge_messages_rejected_total'), { reason: 'busy' }), 1);

    const duration = family(all, 'turnbridge_turn_duration_seconds');
    assert.equal(duration.type, 'HISTOGRAM');
    const h = duration.metrics[0]!;
    assert.deepEqual(Object.keys(h.buckets!).sort(), ['0.5', '1', '2.5', '5', '10', '30', '60', '120', '300', '600', '1800', '+Inf'].sort());
    assert.equal(Number(h.buckets!['0.5']), 1);
    assert.equal(Number(h.buckets!['5']), 2);
    assert.equal(Number(h.buckets!['600']), 2);
    assert.equal(Number(h.buckets!['1800']), 3);
    assert.equal(Number(h.buckets!['+Inf']), 3);
    assert.equal(Number(h.count), 3);
    assert.equal(Number(h.sum), 703.4);

    const wait = family(all, 'turnbridge_queue_wait_seconds');
    assert.equal(wait.type, 'SUMMARY');
    assert.equal(Number(wait.metrics[0]!.sum), 1.5);
    assert.equal(Number(wait.metrics[0]!.count), 1);
    assert.equal(valueOf(family(all, 'turnbridge_queue_depth')), 3);
    assert.equal(valueOf(family(all, 'turnbridge_active_agents')), 2);
    assert.equal(valueOf(family(all, 'turnbridge_parked_agents')), 1);
    assert.equal(valueOf(family(all, 'turnbridge_message_edits_total'), { platform: 'slack' }), 8);
    assert.equal(valueOf(family(all, 'turnbridge_message_edits_total'), { platform: 'discord' }), 1);
    assert.equal(valueOf(family(all, 'turnbridge_message_posts_total'), { platform: 'slack' }), 3);
    assert.equal(valueOf(family(all, 'turnbridge_rate_limit_waits_total'), { platform: 'slack' }), 1);
    assert.equal(valueOf(family(all, 'turnbridge_replies_total'), { platform: 'slack' }), 2);
    const decisions = family(all, 'turnbridge_permission_decisions_total');
    assert.equal(valueOf(decisions, { decision: 'allow', source: 'person' }), 1);
    assert.equal(valueOf(decisions, { decision: 'deny', source: 'timeout' }), 1);
    const decisionTime = family(all, 'turnbridge_permission_decision_seconds').metrics[0]!;
    assert.equal(Number(decisionTime.buckets!['5']), 1);
    assert.equal(Number(decisionTime.buckets!['600']), 2);
    assert.equal(Number(decisionTime.sum), 604);
    assert.deepEqual(m.turnsByOutcome(), { success: 2, error: 1, stopped: 1 });
    assert.equal(all.filter((f) => f.name.startsWith('process_') || f.name.startsWith('nodejs_')).length, 0, 'no process metrics unless asked');
  });

  it('GET /metrics with process metrics: the scrape parses, and has the Node metrics dashboards expect', async (t) => {
    const m = createMetrics({ processMetrics: true });
    m.turnFinished('success', 100);
    const server = createHttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger, metrics: () => m.render() });
    await server.listen();
    t.after(() => server.close());
    const res = await fetch(`${server.url}metrics`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), m.contentType);
    const all = parsePrometheusTextFormat(await res.text());
    for (const name of [
      'process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds',
      'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_active_handles_total', 'nodejs_gc_duration_seconds',
    ]) family(all, name);
    assert.ok(valueOf(family(all, 'process_resident_memory_bytes')) > 0);
    assert.equal(valueOf(family(all, 'turnbridge_turns_total'), { outcome: 'success' }), 1);
  });

  it('a module adds its own metric on the same registry and /metrics serves it', async () => {
    const m = createMetrics();
    const { Counter } = await import('prom-client');
    new Counter({ name: 'turnbridge_test_extra_total', help: 'x', registers: [m.registry] }).inc(4);
    assert.equal(valueOf(family(parsePrometheusTextFormat(await m.render()), 'turnbridge_test_extra_total')), 4);
  });
});
