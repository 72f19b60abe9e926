import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createMetrics } from '../../../src/bridge/index.js';

describe('metrics', () => {
  it('renders Prometheus text with outcomes, a duration histogram, gauges and delivery counters', () => {
    const m = createMetrics();
    m.turnFinished('success', 400);
    m.turnFinished('success', 3000);
    m.turnFinished('error', 700_000);
    m.turnFinished('stopped');
    m.rejected('busy');
    m.setQueueDepth(3);
    m.setActiveAgents(2);
    m.queueWait(1500);
    m.deliveryStats('slack', { posts: 1, edits: 5, rateLimitWaits: 1, parts: 1 });
    m.deliveryStats('slack', { posts: 2, edits: 3, rateLimitWaits: 0, parts: 2 });
    m.deliveryStats('discord', { posts: 1, edits: 1, rateLimitWaits: 0, parts: 1 });
    const text = m.render();
    const has = (line: string) => assert.ok(text.split('\n').includes(line), `missing: ${line}\n${text}`);
    has('# TYPE turnbridge_turns_total counter');
    has('turnbridge_turns_total{outcome="success"} 2');
    has('turnbridge_turns_total{outcome="error"} 1');
    has('turnbridge_turns_total{outcome="stopped"} 1');
    has('turnbridge_messages_rejected_total{reason="busy"} 1');
    has('# TYPE turnbridge_turn_duration_seconds histogram');
    has('turnbridge_turn_duration_seconds_bucket{le="0.5"} 1');
    has('turnbridge_turn_duration_seconds_bucket{le="5"} 2');
    has('turnbridge_turn_duration_seconds_bucket{le="600"} 2');
    has('turnbridge_turn_duration_seconds_bucket{le="1800"} 3');
    has('turnbridge_turn_duration_seconds_bucket{le="+Inf"} 3');
    has('turnbridge_turn_duration_seconds_count 3');
    has('turnbridge_turn_duration_seconds_sum 703.4');
    has('turnbridge_queue_depth 3');
    has('turnbridge_active_agents 2');
    has('turnbridge_queue_wait_seconds_sum 1.5');
    has('turnbridge_message_edits_total{platform="slack"} 8');
    has('turnbridge_message_edits_total{platform="discord"} 1');
    has('turnbridge_message_posts_total{platform="slack"} 3');
    has('turnbridge_rate_limit_waits_total{platform="slack"} 1');
    assert.deepEqual(m.turnsByOutcome(), { success: 2, error: 1, stopped: 1 });
    assert.ok(text.endsWith('\n'));
    for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) {
      assert.match(line, /^[a-z_]+(\{[a-z]+="[^"]*"\})? [0-9.+Inf-]+$/, line);
    }
  });
});
