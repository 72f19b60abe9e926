import { join } from 'node:path';
import type { Logger } from '../log.js';
import { createBridgeState, type BridgeState } from './bridge-state.js';
import { createRedisStore } from './redis-store.js';
import { createSqliteStore } from './sqlite-store.js';
import { privateDirMode } from './private-files.js';

/** The state backend from the configuration: Redis when a URL is given, else SQLite under dataDir. */
export function createState(config: { dataDir: string; redisUrl?: string; agent?: { runAs?: { gid: number } } }, logger: Logger): BridgeState {
  const log = logger.child({ component: 'state' });
  if (config.redisUrl) {
    log.info('state: redis');
    return createBridgeState(createRedisStore({ url: config.redisUrl, onError: (err) => log.error({ err }, 'redis state store error') }));
  }
  const file = join(config.dataDir, 'turnbridge.sqlite');
  log.info({ file }, 'state: embedded SQLite (WAL)');
  return createBridgeState(createSqliteStore({
    file,
    dirMode: privateDirMode(config.agent?.runAs),
    onTightened: (path) => log.warn({ path }, 'the bridge\'s file was readable by other users: tightened (0600 files, 0700 directory)'),
  }));
}
