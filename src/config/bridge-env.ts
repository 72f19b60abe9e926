/**
 * The environment every command reads (start, doctor, audit, allow): ./.env fills what the
 * environment does not set (the environment wins, as process.loadEnvFile does), then every
 * NAME_FILE secret is read into NAME. One place, so `doctor` and `audit` see what `start` sees.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { withSecretFiles } from './secret-files.js';

/** The variables of `cwd`/.env that `env` does not set. Nothing is written to process.env. */
export function dotEnvVars(env: NodeJS.ProcessEnv, cwd = process.cwd()): Record<string, string> {
  const file = resolve(cwd, '.env');
  if (!existsSync(file)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) if (env[k] === undefined && v !== undefined) out[k] = v;
  return out;
}

/** `env` with .env under it and the *_FILE secrets read (a config error names the variable). */
export function bridgeEnv(env: NodeJS.ProcessEnv, cwd = process.cwd()): NodeJS.ProcessEnv {
  return withSecretFiles({ ...dotEnvVars(env, cwd), ...env }, cwd);
}
