/**
 * `turnbridge allow slack:U0123 [discord:8035…]…` / `--remove`: let people in (or out) in one
 * step. The grant goes to the bridge's store (the data dir, or Redis with REDIS_URL), where the
 * running bridge reads it on the person's next message: no restart.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PAIRING_CODE, createAccessGrants } from '../bridge/access-grants.js';
import { IDENTITY_FORMS, parseIdentity } from '../bridge/identity.js';
import { loadConfig } from '../config/index.js';
import { withSecretFiles } from '../config/secret-files.js';
import { TurnbridgeError } from '../errors.js';
import { silentLogger } from '../log.js';
import { ALLOW_HELP } from './allow-help.js';
import type { CliIo } from './io.js';

export async function allowCommand(argv: string[], io: CliIo): Promise<number> {
  let parsed: { values: { remove?: boolean; config?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: { remove: { type: 'boolean' }, config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new TurnbridgeError('TB_USAGE', (err as Error).message);
  }
  if (parsed.values.help) {
    io.stdout.write(ALLOW_HELP);
    return 0;
  }
  if (parsed.positionals.length === 0) throw new TurnbridgeError('TB_USAGE', 'name at least one identity, e.g. slack:U0123');
  const ids: string[] = [];
  const codes: string[] = [];
  for (const raw of parsed.positionals) {
    if (PAIRING_CODE.test(raw.toUpperCase()) && !parsed.values.remove) {
      codes.push(raw.toUpperCase());
      continue;
    }
    const id = parseIdentity(raw);
    if (!id) throw new TurnbridgeError('TB_USAGE', `${JSON.stringify(raw)} is not an identity: write one of ${IDENTITY_FORMS}`);
    if (id.startsWith('slack:S')) {
      throw new TurnbridgeError('TB_USAGE', `${id} is a Slack user group: add it to TURNBRIDGE_ALLOW_USERS (access.allow_users), where the bridge looks up its members`);
    }
    ids.push(id);
  }
  const env = withSecretFiles(withDotEnv(io.env));
  const config = loadConfig({ env, file: parsed.values.config });
  const grants = createAccessGrants(config, silentLogger);
  let failed = 0;
  try {
    for (const code of codes) {
      const id = await grants.redeem(code);
      if (id) ids.push(id);
      else {
        failed++;
        io.stderr.write(`${code}: no such pairing code (they last an hour and work once; the person's reply from the bot shows a fresh one)\n`);
      }
    }
    for (const id of ids) {
      if (parsed.values.remove) {
        const gone = await grants.remove(id);
        io.stdout.write(gone ? `${id}: grant removed\n` : `${id}: had no grant (people on TURNBRIDGE_ALLOW_USERS / access.allow_users stay allowed)\n`);
      } else if (await grants.add(id, 'cli')) {
        io.stdout.write(`${id} can use the bridge now (effective on their next message, no restart needed)\n`);
      } else {
        failed++;
        io.stderr.write(`${id}: the grant could not be saved (${config.redisUrl ? 'is Redis reachable at REDIS_URL?' : `is ${config.dataDir} writable?`})\n`);
      }
    }
  } finally {
    await grants.close();
  }
  if (config.access.mode === 'open' && !parsed.values.remove) io.stdout.write('note: access is open (TURNBRIDGE_ACCESS=open): everyone is served anyway\n');
  return failed ? 1 : 0;
}

/** The variables of ./.env under the given environment (the environment wins), as `turnbridge start` reads them. */
function withDotEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const file = resolve(process.cwd(), '.env');
  if (!existsSync(file) || typeof process.loadEnvFile !== 'function') return env;
  const saved = { ...process.env };
  try {
    process.loadEnvFile(file);
    const fromFile: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (saved[k] === undefined) fromFile[k] = v;
    return { ...fromFile, ...env };
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  }
}
