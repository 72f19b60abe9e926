/**
 * Tokens from files (the Docker / Kubernetes secrets convention): SLACK_BOT_TOKEN_FILE=/run/secrets/slack
 * reads the token from that file, so it need not sit in the bridge's environment, where a process
 * running as the same user can read it from /proc/<pid>/environ.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { TurnbridgeError } from '../errors.js';

/** The variables that may come from a file with a `_FILE` suffix. */
export const SECRET_VARS = [
  'SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET', 'DISCORD_TOKEN', 'REDIS_URL', 'TURNBRIDGE_LOCAL_TOKEN',
  'TURNBRIDGE_METRICS_TOKEN', 'TURNBRIDGE_BUS_KEY', 'TURNBRIDGE_BUS_KEY_PREVIOUS',
] as const;

/** The `_FILE` paths set in `env`, resolved against `cwd` (agents must not see them). */
export function secretFilePaths(env: NodeJS.ProcessEnv, cwd = process.cwd()): string[] {
  return SECRET_VARS.map((n) => env[`${n}_FILE`]?.trim()).filter((p): p is string => Boolean(p)).map((p) => resolve(cwd, p));
}

/**
 * A copy of `env` with every NAME_FILE read into NAME (trailing newline trimmed). Setting both NAME and NAME_FILE, or naming a missing or empty file, is a config error.
 */
export function withSecretFiles(env: NodeJS.ProcessEnv, cwd = process.cwd()): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of SECRET_VARS) {
    const fileVar = `${name}_FILE`;
    const path = env[fileVar]?.trim();
    if (!path) continue;
    if (env[name]?.trim()) {
      throw new TurnbridgeError('TB_CONFIG_INVALID', `both ${name} and ${fileVar} are set`, {
        field: fileVar, hint: `set only one of them: ${fileVar} keeps the value out of the bridge's environment`,
      });
    }
    const file = resolve(cwd, path);
    let value: string;
    try {
      value = readFileSync(file, 'utf8').replace(/\r?\n$/, '').trim();
    } catch (e) {
      throw new TurnbridgeError('TB_CONFIG_INVALID', `${fileVar}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
        file, field: fileVar, hint: `point ${fileVar} at a readable file that holds only the value of ${name}`, cause: e,
      });
    }
    if (!value) {
      throw new TurnbridgeError('TB_CONFIG_INVALID', `${fileVar}: ${file} is empty`, { file, field: fileVar, hint: `write the value of ${name} into it` });
    }
    // NAME_FILE stays: its path is no secret, and agents must not see that file (protected paths).
    out[name] = value;
  }
  return out;
}
