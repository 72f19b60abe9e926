/**
 * Grants kept by older versions in `<data dir>/access` (keyv-file, one file per key) move into the
 * bridge state once: each grant is written to the state, and only when every write landed is the
 * directory renamed to `access.migrated` (kept, not deleted, so nothing is lost if anything goes
 * wrong; a failed migration is retried on the next start). Pairing codes (an hour long) are not
 * carried over: the person's next message shows a fresh one.
 */
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import Keyv from 'keyv';
import { KeyvFile } from 'keyv-file';
import type { Logger } from '../log.js';
import type { KvStore } from './kv.js';

export const OLD_GRANTS_DIR = 'access';

/** True when `<dataDir>/access` holds grants not moved yet (doctor says so). */
export function hasFileGrants(dataDir: string): boolean {
  return existsSync(join(dataDir, OLD_GRANTS_DIR));
}

export async function migrateFileGrants(dataDir: string, kv: KvStore, log: Logger): Promise<number> {
  const dir = join(dataDir, OLD_GRANTS_DIR);
  if (!existsSync(dir)) return 0;
  let moved = 0;
  try {
    const old = new Keyv({ store: new KeyvFile({ filename: dir, separatedFile: true, writeDelay: 0 }), namespace: 'access' });
    const grants: Array<[string, { by?: unknown; at?: unknown }]> = [];
    for await (const [key, value] of old.iterator!(undefined)) {
      if (typeof key === 'string' && !key.startsWith('pair:') && value && typeof value === 'object') grants.push([key, value]);
    }
    await old.disconnect();
    for (const [identity, g] of grants) {
      const grant = { by: typeof g.by === 'string' ? g.by : 'cli', at: typeof g.at === 'number' ? g.at : Date.now() };
      if (!(await kv.set(`access:${identity}`, grant))) throw new Error(`could not write the grant of ${identity}`);
      moved++;
    }
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
