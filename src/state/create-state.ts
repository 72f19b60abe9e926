import { join } from 'node:path';
import { createBusKey, missingBusKey } from '../bus-key.js';
import type { Logger } from '../log.js';
import { createBridgeState, type BridgeState } from './bridge-state.js';
import { createRedisStore } from './redis-store.js';
import type { RejectedRecord } from './sealed-store.js';
import { createSqliteStore } from './sqlite-store.js';
import { privateDirMode } from './private-files.js';

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
export function createState(config: StateConfig, logger: Logger, opts: { onRejected?: (r: RejectedRecord) => void } = {}): BridgeState {
  const log = logger.child({ component: 'state' });
  if (config.redisUrl) {
    if (!config.busKey) throw missingBusKey('REDIS_URL');
    log.info('state: redis');
    return createBridgeState(createRedisStore({
      url: config.redisUrl, key: createBusKey(config.busKey, config.busKeyPrevious),
      onError: (err) => log.error({ err }, 'redis state store error'),
      onRejected: (r) => {
        log.warn(r, `state: ignored a record at ${r.place}:${r.ns}:${r.key} (${r.reason}): it was not written by a replica holding this bridge's TURNBRIDGE_BUS_KEY`);
        opts.onRejected?.(r);
      },
    }));
  }
  const file = join(config.dataDir, 'turnbridge.sqlite');
  log.info({ file }, 'state: embedded SQLite (WAL)');
  return createBridgeState(createSqliteStore({
    file,
    dirMode: privateDirMode(config.agent?.runAs),
    onTightened: (path) => log.warn({ path }, 'the bridge\'s file was readable by other users: tightened (0600 files, 0700 directory)'),
  }));
}
