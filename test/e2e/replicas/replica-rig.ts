/**
 * What the multi-replica e2e tests share: replicas as separate processes (`npm start` each) on one
 * real redis-server, a reader of the shared ledger (the bridge state in that Redis), and polling
 * helpers that say what they waited for.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createState, type State, type LedgerRecord } from '../../../src/state/index.js';
import { silentLogger } from '../../../src/log.js';
import { startRedisServer, type RedisServer, type RedisServerOptions } from '../../fakes/redis-server.js';
import { pollUntil } from '../poll-until.js';
import { replyOf, startBridgeChild, untilReady, type BridgeChild, type ReplyRecord } from '../crash-child.js';
import { TEST_BUS_KEY, testBusKey } from '../../fixtures/bus-key.js';

export interface ReplicaSet {
  redis: RedisServer;
  /** The bridge state as the replicas see it (the test reads the ledger and the queues). */
  state: State;
  /** Running children by replica id (a restarted one replaces its entry). */
  readonly children: Map<string, BridgeChild>;
  /** Start (or start again) the replica with this id on its own data directory. */
  start(id: string, env?: NodeJS.ProcessEnv): BridgeChild;
  /**
   * Start these replicas (each with the set's env, then `envOf(id, i)` over it) and wait until
   * every one answers /readyz (crash recovery done, platforms connected).
   */
  startReady(ids: readonly string[], envOf?: (id: string, i: number) => NodeJS.ProcessEnv): Promise<BridgeChild[]>;
  ledger(): Promise<LedgerRecord[]>;
  /** The reply record of the user message `channel:ts` (undefined once its turn finished). */
  replyOf(records: LedgerRecord[], source: string): ReplyRecord | undefined;
  /** Every replica's output, last 20,000 characters (for failure messages; TB_CRASH_LOG=info for logs). */
  output(): string;
  until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

export async function startReplicaSet(opts: { env: NodeJS.ProcessEnv; config?: string; redis?: RedisServerOptions }): Promise<ReplicaSet> {
  const redis = await startRedisServer(undefined, opts.redis);
  // Opened on first use: over TLS this process does not trust the test CA (the replicas get it
  // through NODE_EXTRA_CA_CERTS, read only at a process's start), so such a test never reads it.
  let opened: State | undefined;
  const state = new Proxy({} as State, {
    get: (_t, prop) => Reflect.get(opened ??= createState({ dataDir: tmpdir(), redisUrl: redis.url, busKey: TEST_BUS_KEY }, silentLogger), prop),
  });
  const children = new Map<string, BridgeChild>();
  const all: BridgeChild[] = [];
  const dirs = new Map<string, string>();
  const output = () => all.map((c) => c.output()).join('\n----\n').slice(-20_000);
  const set: ReplicaSet = {
    redis, state, children,
    start(id, env = {}) {
      const dir = dirs.get(id) ?? mkdtempSync(join(tmpdir(), `tb-${id}-`));
      dirs.set(id, dir);
      const child = startBridgeChild({ dataDir: dir, env: { ...opts.env, REDIS_URL: redis.url, TURNBRIDGE_BUS_KEY: TEST_BUS_KEY, TURNBRIDGE_REPLICA_ID: id, ...env }, config: opts.config ?? '' });
      children.set(id, child);
      all.push(child);
      return child;
    },
    async startReady(ids, envOf) {
      const started = ids.map((id, i) => set.start(id, envOf?.(id, i)));
      for (const c of started) await untilReady(c, 60_000);
      return started;
    },
    output,
    ledger: () => state.ledger.all(),
    replyOf,
    until: (check, what, timeoutMs = 60_000) => pollUntil(check, what, timeoutMs, output),
    async close() {
      if (process.env.TB_CRASH_LOG) all.forEach((c, i) => writeFileSync(join(tmpdir(), `tb-replica-log-${i}.txt`), c.output()));
      await Promise.all(all.map((c) => c.stop()));
      await opened?.close().catch(() => undefined);
      redis.stop();
      for (const d of dirs.values()) {
        rmSync(d, { recursive: true, force: true });
        rmSync(`${d}-workspace`, { recursive: true, force: true });
      }
    },
  };
  return set;
}

/** Alive and not a zombie (one helper for every kill -9 test). */
export { alive } from '../crash-child.js';

/** Ends a leftover agent group (test clean-up only: the bridge ends its own). */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone
  }
}
