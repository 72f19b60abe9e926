import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { BridgeConfig, RouteConfig } from './types.js';
import { checkBusKey, missingBusKey } from '../bus-key.js';
import { TurnbridgeError, yamlErrorText } from '../errors.js';
import { DEFAULTS, LOG_LEVELS, PLATFORM_KEYS, defaultProfilePath } from './defaults.js';
import {
  type Source,
  checkHost,
  checkInt,
  checkKnownKeys,
  checkPositive,
  checkString,
  checkStringList,
  fail,
  isRecord,
  splitCommaList,
} from './field-checks.js';
import { checkApprovers } from './approvals-check.js';
import { checkApprovals, parseDmRoute, parseRoutes } from './parse-routes.js';
import { secretFilePaths } from './secret-files.js';
import { SECURITY_KEYS, checkIdentityList, defaultAccess, defaultLimits, defaultWorkspace, securityFromEnv, securityFromFile, type SecurityValues } from './security-config.js';

export interface LoadConfigOptions {
  /** Environment to read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Config file path; TURNBRIDGE_CONFIG wins over it. Default ./turnbridge.yaml when present. */
  file?: string;
  /** Directory for relative paths from the environment and for ./turnbridge.yaml (default process.cwd()). */
  cwd?: string;
}

/** Top-level keys of turnbridge.yaml. */
export const KNOWN_KEYS = [
  'default_profile', 'routes', 'dm', 'approvers', 'approvals', 'queue_depth', 'max_concurrent', 'shared_max_concurrent', 'permission_timeout_secs',
  'data_dir', 'redis_url', 'host', 'port', 'shutdown_grace_secs', 'log_level', ...SECURITY_KEYS, ...PLATFORM_KEYS,
] as const;

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

type Values = Partial<Omit<BridgeConfig, 'dm'>> & { security?: SecurityValues; dm?: Omit<RouteConfig, 'profile'> & { profile?: string } };

function fromFile(raw: Record<string, unknown>, file: string): Values {
  const src: Source = { file };
  const base = dirname(file);
  // Tokens never go in this file (it is often committed): say where they do go.
  for (const key of ['metrics_token', 'local_token', 'bus_key']) {
    const name = `TURNBRIDGE_${key.toUpperCase()}`;
    if (raw[key] !== undefined) fail(src, key, '[hidden]', 'no tokens in turnbridge.yaml', `remove it and set ${name}_FILE (a file holding the token) or ${name} in the environment`);
  }
  checkKnownKeys(src, '', raw, KNOWN_KEYS);
  const out: Values = { security: securityFromFile(src, raw, base) };
  const path = (field: string, v: unknown) => resolve(base, checkString(src, field, v));
  if (raw.default_profile !== undefined) out.defaultProfile = path('default_profile', raw.default_profile);
  if (raw.routes !== undefined) out.routes = parseRoutes(src, raw.routes, base);
  if (raw.approvers !== undefined) out.approvers = checkIdentityList(src, 'approvers', raw.approvers);
  if (raw.approvals !== undefined) out.approvals = checkApprovals(src, 'approvals', raw.approvals);
  if (raw.dm !== undefined && raw.dm !== null) out.dm = parseDmRoute(src, raw.dm, base);
  if (raw.queue_depth !== undefined) out.queueDepth = checkInt(src, 'queue_depth', raw.queue_depth, 0, 1000);
  if (raw.max_concurrent !== undefined) out.maxConcurrent = checkInt(src, 'max_concurrent', raw.max_concurrent, 1, 1000);
  if (raw.shared_max_concurrent !== undefined) out.sharedMaxConcurrent = checkInt(src, 'shared_max_concurrent', raw.shared_max_concurrent, 1, 100_000);
  if (raw.permission_timeout_secs !== undefined) {
    out.permissionTimeoutSecs = checkPositive(src, 'permission_timeout_secs', raw.permission_timeout_secs, 86_400);
  }
  if (raw.data_dir !== undefined) out.dataDir = path('data_dir', raw.data_dir);
  if (raw.redis_url !== undefined) out.redisUrl = checkRedisUrl(src, 'redis_url', raw.redis_url);
  if (raw.host !== undefined) out.host = checkHost(src, 'host', raw.host);
  if (raw.port !== undefined) out.port = checkInt(src, 'port', raw.port, 0, 65_535);
  if (raw.shutdown_grace_secs !== undefined) out.shutdownGraceSecs = checkPositive(src, 'shutdown_grace_secs', raw.shutdown_grace_secs, 3600);
  if (raw.log_level !== undefined) out.logLevel = checkLogLevel(src, 'log_level', raw.log_level);
  const platforms: Record<string, Record<string, unknown>> = {};
  for (const key of PLATFORM_KEYS) {
    const section = raw[key];
    if (section === undefined || section === null) continue;
    if (!isRecord(section)) fail(src, key, section, `a mapping of ${key} settings`, `see the ${key}: section of turnbridge.example.yaml`);
    platforms[key] = section;
  }
  out.platforms = platforms;
  return out;
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

function checkRedisUrl(src: Source, field: string, v: unknown): string {
  const s = checkString(src, field, v);
  if (!/^rediss?:\/\//.test(s)) fail(src, field, '[a non-redis URL]', 'a redis:// or rediss:// URL');
  return s;
}

function checkLogLevel(src: Source, field: string, v: unknown): string {
  const s = typeof v === 'string' ? v.trim().toLowerCase() : v;
  if (typeof s !== 'string' || !(LOG_LEVELS as readonly string[]).includes(s)) fail(src, field, v, `one of ${LOG_LEVELS.join(', ')}`);
  return s;
}

function fromEnv(env: NodeJS.ProcessEnv, cwd: string): Omit<Values, 'dm'> {
  const src: Source = { label: 'environment' };
  const out: Omit<Values, 'dm'> = { security: securityFromEnv(env, cwd) };
  const val = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const profile = val('TURNBRIDGE_PROFILE');
  if (profile) out.defaultProfile = isAbsolute(profile) ? profile : resolve(cwd, profile);
  const dataDir = val('TURNBRIDGE_DATA_DIR');
  if (dataDir) out.dataDir = resolve(cwd, dataDir);
  const host = val('HOST');
  if (host) out.host = checkHost(src, 'HOST', host);
  const port = val('PORT');
  if (port) out.port = checkInt(src, 'PORT', port, 0, 65_535);
  const redis = val('REDIS_URL');
  if (redis) out.redisUrl = checkRedisUrl(src, 'REDIS_URL', redis);
  const busKey = val('TURNBRIDGE_BUS_KEY');
  if (busKey) out.busKey = checkBusKey(env.TURNBRIDGE_BUS_KEY_FILE ? 'TURNBRIDGE_BUS_KEY_FILE' : 'TURNBRIDGE_BUS_KEY', busKey);
  const previousKey = val('TURNBRIDGE_BUS_KEY_PREVIOUS');
  if (previousKey) out.busKeyPrevious = checkBusKey(env.TURNBRIDGE_BUS_KEY_PREVIOUS_FILE ? 'TURNBRIDGE_BUS_KEY_PREVIOUS_FILE' : 'TURNBRIDGE_BUS_KEY_PREVIOUS', previousKey);
  const heartbeat = val('TURNBRIDGE_REPLICA_HEARTBEAT_MS');
  if (heartbeat) out.replicaHeartbeatMs = checkInt(src, 'TURNBRIDGE_REPLICA_HEARTBEAT_MS', heartbeat, 300, 600_000);
  const level = val('LOG_LEVEL');
  if (level) out.logLevel = checkLogLevel(src, 'LOG_LEVEL', level);
  const max = val('TURNBRIDGE_MAX_CONCURRENT');
  if (max) out.maxConcurrent = checkInt(src, 'TURNBRIDGE_MAX_CONCURRENT', max, 1, 1000);
  const sharedMax = val('TURNBRIDGE_SHARED_MAX_CONCURRENT');
  if (sharedMax) out.sharedMaxConcurrent = checkInt(src, 'TURNBRIDGE_SHARED_MAX_CONCURRENT', sharedMax, 1, 100_000);
  const depth = val('TURNBRIDGE_QUEUE_DEPTH');
  if (depth) out.queueDepth = checkInt(src, 'TURNBRIDGE_QUEUE_DEPTH', depth, 0, 1000);
  const approvers = val('TURNBRIDGE_APPROVERS');
  if (approvers) out.approvers = checkIdentityList(src, 'TURNBRIDGE_APPROVERS', approvers);
  const approvals = val('TURNBRIDGE_APPROVALS');
  if (approvals) out.approvals = checkApprovals(src, 'TURNBRIDGE_APPROVALS', approvals);
  const permTimeout = val('TURNBRIDGE_PERMISSION_TIMEOUT_SECS');
  if (permTimeout) out.permissionTimeoutSecs = checkPositive(src, 'TURNBRIDGE_PERMISSION_TIMEOUT_SECS', permTimeout, 86_400);
  return out;
}

/**
 * Build the bridge configuration: defaults, then turnbridge.yaml (when there is one), then the
 * environment, which overrides the basics so a one-profile deployment needs no file.
 * Throws TurnbridgeError TB_CONFIG_INVALID naming the file, the field, what was found and what is expected.
 */
export function loadConfig(opts: LoadConfigOptions = {}): BridgeConfig {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const file = pickFile(env, cwd, opts.file);
  const { security: fileSec = {}, ...fileValues }: Values = file ? fromFile(readConfigFile(file), file) : {};
  const { security: envSec = {}, ...envValues } = fromEnv(env, cwd);
  const { dm: fileDm, ...fileRest } = fileValues;
  const merged: Omit<BridgeConfig, 'access' | 'limits' | 'agent' | 'allowedHosts'> = {
    defaultProfile: defaultProfilePath(),
    routes: [],
    approvers: [],
    queueDepth: DEFAULTS.queueDepth,
    maxConcurrent: DEFAULTS.maxConcurrent,
    permissionTimeoutSecs: DEFAULTS.permissionTimeoutSecs,
    dataDir: resolve(cwd, DEFAULTS.dataDir),
    host: DEFAULTS.host,
    port: DEFAULTS.port,
    shutdownGraceSecs: DEFAULTS.shutdownGraceSecs,
    logLevel: DEFAULTS.logLevel,
    platforms: {},
    ...fileRest,
    ...envValues,
  };
  if (file) merged.file = file;
  if (fileDm) merged.dm = { ...fileDm, profile: fileDm.profile ?? merged.defaultProfile };
  checkRouteApprovals(merged, envValues.approvals !== undefined);
  checkSharedCap(merged, envValues.sharedMaxConcurrent !== undefined ? undefined : file);
  // Redis is reachable by more than this process: nothing read from it is trusted unsigned.
  if (merged.redisUrl && !merged.busKey) throw missingBusKey(envValues.redisUrl ? 'REDIS_URL' : `${file}: redis_url`);
  const protectedPaths = [cwd, resolve(cwd, '.env'), merged.dataDir, ...(file ? [file] : []), ...secretFilePaths(env, cwd)];
  const agent = { workspace: defaultWorkspace(), sandbox: 'auto' as const, ...fileSec.agent, ...envSec.agent, protectedPaths };
  const { localToken, metricsToken } = envSec;
  const access = { ...defaultAccess(), ...fileSec.access, ...envSec.access };
  checkApprovers({ ...merged, access }, { fromEnv: envValues.approvals !== undefined });
  return {
    ...merged,
    access,
    limits: { ...defaultLimits(merged.maxConcurrent), ...fileSec.limits, ...envSec.limits },
    agent,
    allowedHosts: envSec.allowedHosts ?? fileSec.allowedHosts ?? [],
    ...(localToken ? { localToken } : {}),
    ...(metricsToken ? { metricsToken } : {}),
  };
}
