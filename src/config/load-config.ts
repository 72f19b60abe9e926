/**
 * loadConfig: turnbridge.yaml (TURNBRIDGE_CONFIG, --config, or ./turnbridge.yaml) and the
 * environment read through the settings table (schema.ts), then the checks that span settings.
 * Every mistake is a TB_CONFIG_INVALID naming the file or variable, the field and the fix.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { BridgeConfig } from './types.js';
import { missingBusKey } from '../bus-key-check.js';
import { TurnbridgeError, yamlErrorText } from '../errors.js';
import { fail, isRecord } from './field-checks.js';
import { checkApprovers } from './approvals-check.js';
import { checkSlackRouteOptions, discordConfig, slackConfig } from './platform-configs.js';
import { BRIDGE } from './schema.js';
import { secretFilePaths } from './secret-files.js';
import { envValue, readSection } from './table.js';

export interface LoadConfigOptions {
  /** The environment to read (bridge-env.ts bridgeEnv: .env and the *_FILE secrets in); default none. */
  env?: NodeJS.ProcessEnv;
  /** Config file path; TURNBRIDGE_CONFIG wins over it. Default ./turnbridge.yaml when present. */
  file?: string;
  /** Directory for relative paths from the environment and for ./turnbridge.yaml (default process.cwd()). */
  cwd?: string;
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new TurnbridgeError('TB_CONFIG_INVALID', `${file}: cannot read the config file (${code ?? (e as Error).message})`, {
      file,
      hint: 'check TURNBRIDGE_CONFIG or the --config path, or remove it to run on environment defaults',
      cause: e,
    });
  }
  const doc = parseDocument(text, { prettyErrors: true, intAsBigInt: true });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const line = first.linePos?.[0]?.line;
    throw new TurnbridgeError('TB_CONFIG_INVALID', `${file}${line ? `:${line}` : ''}: not valid YAML: ${yamlErrorText(first)}`, {
      file,
      hint: 'fix the YAML syntax (indentation, quotes, colons)',
      cause: first,
    });
  }
  const data: unknown = unBigInt(doc.toJS());
  if (data === null || data === undefined) return {};
  if (!isRecord(data)) fail({ file }, '(top level)', data, 'a mapping of settings (key: value)', 'see turnbridge.example.yaml');
  return data;
}

/**
 * YAML integers are read as bigint so that a Discord snowflake written without quotes keeps every
 * digit: safe ones become numbers again, longer ones become their exact decimal string.
 */
function unBigInt(v: unknown): unknown {
  if (typeof v === 'bigint') return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v.toString();
  if (Array.isArray(v)) return v.map(unBigInt);
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unBigInt(x)]));
  return v;
}

function pickFile(env: NodeJS.ProcessEnv, cwd: string, file?: string): string | undefined {
  const explicit = env.TURNBRIDGE_CONFIG?.trim() || file;
  if (explicit) {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) {
      throw new TurnbridgeError('TB_CONFIG_INVALID', `${path}: config file not found`, {
        file: path,
        field: env.TURNBRIDGE_CONFIG ? 'TURNBRIDGE_CONFIG' : undefined,
        hint: 'point TURNBRIDGE_CONFIG at an existing turnbridge.yaml, or unset it to run on environment defaults',
      });
    }
    return path;
  }
  const local = resolve(cwd, 'turnbridge.yaml');
  return existsSync(local) ? local : undefined;
}

/**
 * The bridge-wide `approvals: approvers` is a floor: a route's `approvals: author` would read as
 * an exception it is not, so it is refused.
 */
function checkRouteApprovals(c: Pick<BridgeConfig, 'approvals' | 'routes' | 'dm' | 'file'>, fromEnv: boolean): void {
  if (c.approvals !== 'approvers') return;
  const loose = [...c.routes.map((r, i) => [r, `routes[${i}].approvals`] as const), ...(c.dm ? [[c.dm, 'dm.approvals'] as const] : [])].find(([r]) => r.approvals === 'author');
  if (!loose) return;
  const by = fromEnv ? 'TURNBRIDGE_APPROVALS=approvers' : 'approvals: approvers';
  fail({ file: c.file }, loose[1], 'author', `approvers, or no approvals there (${by} holds on every route)`, `remove ${loose[1]}: a route can make approvals stricter, never looser than ${by}`);
}

/** The shared cap lives in Redis: without REDIS_URL it would silently count per replica. */
function checkSharedCap(c: Pick<BridgeConfig, 'sharedMaxConcurrent' | 'redisUrl'>, file: string | undefined): void {
  if (c.sharedMaxConcurrent === undefined || c.redisUrl) return;
  const field = file ? 'shared_max_concurrent' : 'TURNBRIDGE_SHARED_MAX_CONCURRENT';
  throw new TurnbridgeError('TB_CONFIG_INVALID', `${file ? `${file}: ` : ''}${field}=${c.sharedMaxConcurrent} caps turns across replicas through Redis, but REDIS_URL (redis_url) is not set`, {
    ...(file ? { file } : {}),
    field,
    found: c.sharedMaxConcurrent,
    hint: `set REDIS_URL to the Redis every replica uses, or remove ${field} (one replica: max_concurrent is the cap)`,
  });
}

/**
 * Build the bridge configuration: defaults, then turnbridge.yaml (when there is one), then the
 * environment, which wins, so a one-profile deployment needs no file. The platform sections are
 * read whether or not their platform is on; Slack and Discord are configured when their token is set.
 * Throws TurnbridgeError TB_CONFIG_INVALID naming the file, the field, what was found and what is expected.
 */
export function loadConfig(opts: LoadConfigOptions = {}): BridgeConfig {
  const env = opts.env ?? {};
  const cwd = opts.cwd ?? process.cwd();
  const file = pickFile(env, cwd, opts.file);
  const { agent: agentValues, slack, discord, local, ...merged } = readSection(BRIDGE, file ? readConfigFile(file) : undefined, '', { file, env, cwd });
  const fromEnv = (name: string) => envValue(env, name) !== undefined;
  const config: BridgeConfig = {
    ...merged,
    ...(file ? { file } : {}),
    agent: { ...agentValues, protectedPaths: [cwd, resolve(cwd, '.env'), merged.dataDir, ...(file ? [file] : []), ...secretFilePaths(env, cwd)], bridgeDir: cwd },
    platforms: {
      ...(slack.botToken ? { slack: slackConfig(slack) } : {}),
      ...(discord.token ? { discord: discordConfig(discord, merged.routes, file) } : {}),
      local,
    },
  };
  if (config.platforms.slack) checkSlackRouteOptions(config);
  checkRouteApprovals(config, fromEnv('TURNBRIDGE_APPROVALS'));
  checkSharedCap(config, fromEnv('TURNBRIDGE_SHARED_MAX_CONCURRENT') ? undefined : file);
  // Redis is reachable by more than this process: nothing read from it is trusted unsigned.
  if (config.redisUrl && !config.busKey) throw missingBusKey(fromEnv('REDIS_URL') ? 'REDIS_URL' : `${file}: redis_url`);
  checkApprovers(config, { fromEnv: fromEnv('TURNBRIDGE_APPROVALS') });
  return config;
}
