import { join } from 'node:path';
import { createBusKey } from '../bus-key.js';
import { missingBusKey } from '../bus-key-check.js';
import type { Logger } from '../log.js';
import type { AccessGrants } from './grants.js';
import { connectRedis, type RedisConnections } from '../redis/index.js';
import { createRedisStore } from './redis-store.js';
import type { RejectedRecord } from './sealed-store.js';
import { createSqliteStore } from './sqlite-store.js';
import { privateDirMode } from './private-files.js';
import { openState, type State, type StateOptions } from './state.js';

export interface StateConfig {
  dataDir: string;
  redisUrl?: string;
  /** TURNBRIDGE_BUS_KEY (and _PREVIOUS): required with redisUrl, the Redis records are sealed with it. */
  busKey?: string;
  busKeyPrevious?: string;
  /** With run_as, the data directory is group-readable by its group (private-files.ts). */
  agent?: { runAs?: { gid: number } };
}

/**
 * The state backend from the configuration: Redis when a URL is given, else SQLite under dataDir.
 * Redis records are sealed with the bus key (sealed-store.ts); SQLite's are not: its file is the
 * bridge user's own (0600), and a process that can write it can read the key just as well.
 */
export function createState(config: StateConfig, logger: Logger, opts: Omit<StateOptions, 'logger'> & { onRejected?: (r: RejectedRecord) => void; redis?: RedisConnections } = {}): State {
  const log = logger.child({ component: 'state' });
  const { redis: given, onRejected, ...typed } = opts;
  if (config.redisUrl) {
    if (!config.busKey) throw missingBusKey('REDIS_URL');
    log.info('state: redis');
    // A process without connections of its own (the CLI's allow and audit) opens them here, and
    // they close with the state.
    const redis = given ?? connectRedis(config.redisUrl, { logger });
    const store = createRedisStore({
      redis, key: createBusKey(config.busKey, config.busKeyPrevious),
      onRejected: (r) => {
        log.warn(r, `state: ignored a record at ${r.place}:${r.ns}:${r.key} (${r.reason}): it was not written by a replica holding this bridge's TURNBRIDGE_BUS_KEY`);
        onRejected?.(r);
      },
    });
    return openState(given ? store : { ...store, close: async () => { await store.close(); await redis.close(); } }, { ...typed, logger });
  }
  const file = join(config.dataDir, 'turnbridge.sqlite');
  log.info({ file }, 'state: embedded SQLite (WAL)');
  return openState(createSqliteStore({
    file,
    dirMode: privateDirMode(config.agent?.runAs),
    onTightened: (path) => log.warn({ path }, 'the bridge\'s file was readable by other users: tightened (0600 files, 0700 directory)'),
  }), { ...typed, logger });
}

/**
 * Grants for a process that has no bridge state of its own (`turnbridge allow`, tests): opens the
 * state on first use (a data dir that cannot be made reads as "not saved", with the reason logged)
 * and closes it on close().
 */
export function openGrants(config: StateConfig, logger: Logger): AccessGrants & { close(): Promise<void> } {
  let opened: ReturnType<typeof createState> | undefined;
  let failed = false;
  const log = logger.child({ component: 'access-grants' });
  const NOT_GRANTED = 'treating the person as not granted';
  const open = (): AccessGrants | undefined => {
    if (!opened && !failed) {
      try {
        opened = createState(config, logger);
      } catch (err) {
        failed = true;
        log.error({ err }, `the bridge state could not be opened; ${NOT_GRANTED}`);
      }
    }
    return opened?.grants;
  };
  return {
    hasAny: async (ids) => (await open()?.hasAny(ids)) ?? false,
    add: async (id, by, how) => (await open()?.add(id, by, how)) ?? 'failed',
    remove: async (id, by) => (await open()?.remove(id, by)) ?? false,
    list: async () => open()?.list(),
    pairingCode: async (id, who) => open()?.pairingCode(id, who),
    peek: async (code) => open()?.peek(code),
    redeem: async (code) => open()?.redeem(code),
    async close() {
      await opened?.close().catch(() => undefined);
    },
  };
}
