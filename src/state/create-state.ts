import { join } from 'node:path';
import type { Logger } from '../log.js';
import { createBridgeState, type BridgeState } from './bridge-state.js';
import { createRedisStore } from './redis-store.js';
import { createSqliteStore } from './sqlite-store.js';

/** The state backend from the configuration: Redis when a URL is given, else SQLite under dataDir. */
export function createState(config: { dataDir: string; redisUrl?: string }, logger: Logger): BridgeState {
  const log = logger.child({ component: 'state' });
  if (config.redisUrl) {
    log.info('state: redis');
    return createBridgeState(createRedisStore({ url: config.redisUrl, onError: (err) => log.error({ err }, 'redis state store error') }));
  }
  const file = join(config.dataDir, 'turnbridge.sqlite');
  log.info({ file }, 'state: embedded SQLite (WAL)');
  return createBridgeState(createSqliteStore({ file }));
}
