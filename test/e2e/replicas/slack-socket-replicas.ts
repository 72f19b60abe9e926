/**
 * Replicas in Slack Socket Mode on the fake Slack: each replica holds its own Socket Mode
 * connection and the fake spreads envelopes over them round-robin, as Slack does. What the
 * Socket Mode replica tests start the same way (the HTTP-mode test puts a proxy in front instead).
 */
import type { RedisServerOptions } from '../../fakes/redis-server.js';
import type { FakeSlack } from '../../fakes/slack/index.js';
import { slackEnv } from '../slack/harness.js';
import { AGENT_PROFILE } from '../slack/turn-rig.js';
import { startReplicaSet, type ReplicaSet } from './replica-rig.js';

/**
 * A replica set on `fake` (the test's agent profile, the set's env over it), with `ids` started
 * and resolved once every one is ready and connected. `env`/`config` go to every replica; on a
 * failure to start, what was started is stopped again.
 */
export async function startSlackSocketReplicas(fake: FakeSlack, ids: readonly string[], opts: { env: Record<string, string>; config: string; redis?: RedisServerOptions }): Promise<ReplicaSet> {
  fake.socket.spread = 'round-robin';
  const set = await startReplicaSet({ env: slackEnv(fake, { TURNBRIDGE_PROFILE: AGENT_PROFILE, ...opts.env }), config: opts.config, ...(opts.redis ? { redis: opts.redis } : {}) });
  try {
    await set.startReady(ids);
    await fake.waitFor(() => fake.socket.connections === ids.length, `${ids.length} Socket Mode connections`, 30_000);
  } catch (err) {
    await set.close(); // the caller never gets the set to close
    throw err;
  }
  return set;
}
