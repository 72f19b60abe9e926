/**
 * Grants kept by older versions move into the bridge state once, at start-up:
 * - embedded: `<data dir>/access` (keyv-file, one file per key); only when every write landed is
 *   the directory renamed to `access.migrated` (kept, not deleted);
 * - Redis: the keyv namespace `turnbridge:access` is NOT moved: its grants were written unsigned,
 *   so they cannot be told from ones any client of that Redis wrote (and a marker saying "done"
 *   can be deleted by such a client too). The start logs how many there are and how to grant
 *   them again; the state's own grants are sealed (state/sealed-store.ts).
 * A failed migration is logged and retried on the next start. Pairing codes (an hour long) are
 * not carried over: the person's next message shows a fresh one.
 */
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { KeyvFile } from 'keyv-file';
import type { Logger } from '../log.js';
import type { KvStore } from './kv.js';

export const OLD_GRANTS_DIR = 'access';

/** Where a person's grant lives in the state's kv (the bridge reads it there; old grants move there). */
export const grantKey = (identity: string): string => `access:${identity}`;

/** True when `<dataDir>/access` holds grants not moved yet (doctor says so). */
export function hasFileGrants(dataDir: string): boolean {
  return existsSync(join(dataDir, OLD_GRANTS_DIR));
}

const REDIS_DONE = 'access-migrated:keyv-redis';

/** Both kinds, each once; resolves with the number of grants moved. */
export async function migrateOldGrants(config: { dataDir: string; redisUrl?: string }, kv: KvStore, log: Logger): Promise<number> {
  const fromFiles = await migrateFileGrants(config.dataDir, kv, log);
  return fromFiles + (config.redisUrl ? await migrateRedisGrants(config.redisUrl, kv, log) : 0);
}

/** Every grant of an old keyv store (pairing codes skipped), written to the state; throws if a write failed. */
async function copyGrants(old: Keyv, kv: KvStore): Promise<number> {
  const grants: Array<[string, { by?: unknown; at?: unknown }]> = [];
  for await (const [key, value] of old.iterator!(undefined)) {
    if (typeof key === 'string' && !key.startsWith('pair:') && value && typeof value === 'object') grants.push([key, value]);
  }
  for (const [identity, g] of grants) {
    const grant = { by: typeof g.by === 'string' ? g.by : 'cli', at: typeof g.at === 'number' ? g.at : Date.now() };
    if (!(await kv.set(grantKey(identity), grant))) throw new Error(`could not write the grant of ${identity}`);
  }
  return grants.length;
}

/** Says what the old namespace holds, and moves nothing (see the top of this file). */
async function migrateRedisGrants(url: string, kv: KvStore, log: Logger): Promise<number> {
  if (await kv.get(REDIS_DONE)) return 0;
  const old = new Keyv({ store: new KeyvRedis(url, { throwOnConnectError: true, connectionTimeout: 3000 }), namespace: 'turnbridge:access', useKeyPrefix: false });
  old.on('error', () => undefined);
  try {
    const ids: string[] = [];
    for await (const [key, value] of old.iterator!(undefined)) {
      if (typeof key === 'string' && !key.startsWith('pair:') && value && typeof value === 'object') ids.push(key);
    }
    if (ids.length) {
      log.warn({ grants: ids.length, identities: ids.slice(0, 20) }, `${ids.length} access grants of an older version in the Redis namespace turnbridge:access are not moved into the bridge state: they were written unsigned, and anyone who can reach Redis could have written them. Grant them again: turnbridge allow ${ids.slice(0, 3).join(' ')}${ids.length > 3 ? ' …' : ''}`);
    }
    await kv.set(REDIS_DONE, { at: Date.now(), grants: 0, notMoved: ids.length });
  } catch (err) {
    log.error({ err }, 'the Redis namespace turnbridge:access (grants of an older version) could not be read; looked at again on the next start');
  } finally {
    await old.disconnect().catch(() => undefined);
  }
  return 0;
}

async function migrateFileGrants(dataDir: string, kv: KvStore, log: Logger): Promise<number> {
  const dir = join(dataDir, OLD_GRANTS_DIR);
  if (!existsSync(dir)) return 0;
  let moved = 0;
  try {
    const old = new Keyv({ store: new KeyvFile({ filename: dir, separatedFile: true, writeDelay: 0 }), namespace: 'access' });
    moved = await copyGrants(old, kv);
    await old.disconnect();
    let target = `${dir}.migrated`;
    if (existsSync(target)) target = `${dir}.migrated-${Date.now()}`;
    try {
      await rename(dir, target);
    } catch (err) {
      // Another process (the bridge, `turnbridge allow`) moved the same grants at the same time.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return moved;
      throw err;
    }
    log.info({ grants: moved, from: dir, keptAs: target }, `access grants moved from ${dir} into the bridge state (${moved}); the old directory is kept as ${target}`);
  } catch (err) {
    log.error({ err, dir, moved }, `access grants in ${dir} could not be moved into the bridge state; they are kept there and tried again on the next start`);
  }
  return moved;
}
