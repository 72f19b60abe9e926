/**
 * The environment, read in this one place. The entry points (main.ts, cli/io.ts) take the process's
 * environment from processEnv() and hand it down; nothing else reads process.env. From it:
 * - agentEnv: what agents are started in and their profiles' ${VAR} read: the environment with
 *   ./.env filling what it does not set (the environment wins, as process.loadEnvFile does);
 * - bridgeEnv: what the settings are read from (start, run, chat, doctor, audit, allow alike):
 *   agentEnv with every NAME_FILE secret read into NAME (secret-files.ts), kept out of agentEnv.
 * The settings themselves are read from it only through the settings table (schema.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { withSecretFiles } from './secret-files.js';

/** The process's environment (the one read of process.env). */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}

/** The variables of `cwd`/.env that `env` does not set. Nothing is written to process.env. */
export function dotEnvVars(env: NodeJS.ProcessEnv, cwd = process.cwd()): Record<string, string> {
  const file = resolve(cwd, '.env');
  if (!existsSync(file)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) if (env[k] === undefined && v !== undefined) out[k] = v;
  return out;
}

/** `env` with .env under it: the agents' environment. */
export function agentEnv(env: NodeJS.ProcessEnv, cwd = process.cwd()): NodeJS.ProcessEnv {
  return { ...dotEnvVars(env, cwd), ...env };
}

/** `env` with .env under it and the *_FILE secrets read (a config error names the variable). */
export function bridgeEnv(env: NodeJS.ProcessEnv, cwd = process.cwd()): NodeJS.ProcessEnv {
  return withSecretFiles(agentEnv(env, cwd), cwd);
}
