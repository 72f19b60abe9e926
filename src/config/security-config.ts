/**
 * The security settings of turnbridge.yaml and the environment (docs/security.md): who may use
 * the bridge (`access:`), what one person may hold (`limits:`), how agents are started
 * (`agent:`), and which Host names the HTTP server answers (`allowed_hosts:`).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AccessConfig, AgentConfig, LimitsConfig } from './types.js';
import { IDENTITY_FORMS, guessIdentity, parseIdentity } from './identity-forms.js';
import { type Source, checkId, checkInt, checkKnownKeys, checkString, fail, isRecord, splitCommaList } from './field-checks.js';

export const SECURITY_KEYS = ['access', 'limits', 'agent', 'allowed_hosts'] as const;
const ACCESS_KEYS = ['mode', 'allow_users', 'admins', 'channels', 'dms'] as const;
const LIMIT_KEYS = ['running_per_user', 'waiting_per_user', 'waiting', 'prompt_waits', 'outbox_files', 'outbox_bytes'] as const;
const AGENT_KEYS = ['workspace', 'sandbox', 'run_as'] as const;

/** Where agents work when their profile names no cwd: outside the bridge's directory and data dir. */
export function defaultWorkspace(): string {
  return join(homedir(), '.turnbridge', 'workspace');
}

/** `~/x` -> the home directory's x; other paths resolved against `base`. */
function dirPath(base: string, p: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return join(homedir(), p.slice(2));
  return resolve(base, p);
}

export function defaultAccess(): AccessConfig {
  return { mode: 'closed', allowUsers: [], admins: [], dms: true };
}

export function defaultLimits(maxConcurrent: number): LimitsConfig {
  return { runningPerUser: 2, waitingPerUser: 5, waiting: 100, promptWaits: maxConcurrent, outboxFiles: 10, outboxBytes: 20 * 1048576 };
}

/**
 * A list of `platform:id` entries, the one form for access lists, admins and approvers: a bare id
 * is refused with the `platform:id` it most likely means.
 */
export function checkIdentityList(src: Source, field: string, v: unknown): string[] {
  const items = typeof v === 'string' ? splitCommaList(v) : v;
  if (!Array.isArray(items)) fail(src, field, v, `a list of platform:id entries (${IDENTITY_FORMS})`);
  return items.map((item, i) => {
    const s = checkId(src, `${field}[${i}]`, item);
    const id = parseIdentity(s);
    const guess = id ? undefined : guessIdentity(s);
    if (!id) fail(src, typeof v === 'string' ? field : `${field}[${i}]`, s, `platform:id, one of ${IDENTITY_FORMS}`, guess ? `write it as ${guess}` : undefined);
    return id;
  });
}

function checkChannelList(src: Source, field: string, v: unknown): string[] {
  const items = typeof v === 'string' ? splitCommaList(v) : v;
  if (!Array.isArray(items)) fail(src, field, v, 'a list of platform:channelId entries, e.g. [slack:C0123, discord:1234567890123456789]');
  return items.map((item, i) => {
    const s = checkId(src, `${field}[${i}]`, item);
    const m = /^(slack|discord):([A-Za-z0-9]+)$/i.exec(s);
    if (!m) fail(src, typeof v === 'string' ? field : `${field}[${i}]`, s, 'platform:channelId, e.g. slack:C0123 or discord:1234567890123456789');
    return `${m[1]!.toLowerCase()}:${m[1]!.toLowerCase() === 'slack' ? m[2]!.toUpperCase() : m[2]}`;
  });
}

function checkBool(src: Source, field: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(1|true|yes|on)$/i.test(v.trim())) return true;
  if (typeof v === 'string' && /^(0|false|no|off)$/i.test(v.trim())) return false;
  fail(src, field, v, 'true or false');
}

function checkMode(src: Source, field: string, v: unknown): 'open' | 'closed' {
  const s = typeof v === 'string' ? v.trim().toLowerCase() : v;
  if (s !== 'open' && s !== 'closed') fail(src, field, v, 'closed (only allowed users) or open (anyone who can reach the bot)');
  return s;
}

function checkSandbox(src: Source, field: string, v: unknown): 'auto' | 'off' | 'bwrap' {
  const s = typeof v === 'string' ? v.trim().toLowerCase() : v;
  if (s !== 'auto' && s !== 'off' && s !== 'bwrap') fail(src, field, v, 'auto (the default: the bubblewrap box when it can start here), bwrap (the box or no start) or off');
  return s;
}

/** "1000:1000" or {uid, gid}. */
function checkRunAs(src: Source, field: string, v: unknown): { uid: number; gid: number } {
  if (isRecord(v)) return { uid: checkInt(src, `${field}.uid`, v.uid, 0, 2 ** 31), gid: checkInt(src, `${field}.gid`, v.gid, 0, 2 ** 31) };
  const m = typeof v === 'string' ? /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(v) : null;
  if (!m) fail(src, field, v, 'uid:gid, e.g. 1000:1000');
  return { uid: Number(m[1]), gid: Number(m[2]) };
}

export interface SecurityValues {
  access?: Partial<AccessConfig>;
  limits?: Partial<LimitsConfig>;
  agent?: Partial<Omit<AgentConfig, 'protectedPaths'>>;
  allowedHosts?: string[];
  localToken?: string;
  metricsToken?: string;
}

export function securityFromFile(src: Source, raw: Record<string, unknown>, base: string): SecurityValues {
  const out: SecurityValues = {};
  const section = (key: string, keys: readonly string[]): Record<string, unknown> | undefined => {
    const v = raw[key];
    if (v === undefined || v === null) return undefined;
    if (!isRecord(v)) fail(src, key, v, `a mapping of ${key} settings`, `see the ${key}: section of turnbridge.example.yaml`);
    checkKnownKeys(src, key, v, keys);
    return v;
  };
  const a = section('access', ACCESS_KEYS);
  if (a) {
    const access: Partial<AccessConfig> = {};
    if (a.mode !== undefined) access.mode = checkMode(src, 'access.mode', a.mode);
    if (a.allow_users !== undefined) access.allowUsers = checkIdentityList(src, 'access.allow_users', a.allow_users);
    if (a.admins !== undefined) access.admins = checkIdentityList(src, 'access.admins', a.admins);
    if (a.channels !== undefined) access.channels = checkChannelList(src, 'access.channels', a.channels);
    if (a.dms !== undefined) access.dms = checkBool(src, 'access.dms', a.dms);
    out.access = access;
  }
  const l = section('limits', LIMIT_KEYS);
  if (l) {
    const limits: Partial<LimitsConfig> = {};
    if (l.running_per_user !== undefined) limits.runningPerUser = checkInt(src, 'limits.running_per_user', l.running_per_user, 1, 1000);
    if (l.waiting_per_user !== undefined) limits.waitingPerUser = checkInt(src, 'limits.waiting_per_user', l.waiting_per_user, 0, 1000);
    if (l.waiting !== undefined) limits.waiting = checkInt(src, 'limits.waiting', l.waiting, 0, 100_000);
    if (l.prompt_waits !== undefined) limits.promptWaits = checkInt(src, 'limits.prompt_waits', l.prompt_waits, 0, 1000);
    if (l.outbox_files !== undefined) limits.outboxFiles = checkInt(src, 'limits.outbox_files', l.outbox_files, 0, 100);
    if (l.outbox_bytes !== undefined) limits.outboxBytes = checkInt(src, 'limits.outbox_bytes', l.outbox_bytes, 1, 2 ** 30);
    out.limits = limits;
  }
  const g = section('agent', AGENT_KEYS);
  if (g) {
    const agent: SecurityValues['agent'] = {};
    if (g.workspace !== undefined) agent.workspace = dirPath(base, checkString(src, 'agent.workspace', g.workspace));
    if (g.sandbox !== undefined) agent.sandbox = checkSandbox(src, 'agent.sandbox', g.sandbox);
    if (g.run_as !== undefined) agent.runAs = checkRunAs(src, 'agent.run_as', g.run_as);
    out.agent = agent;
  }
  if (raw.allowed_hosts !== undefined) out.allowedHosts = checkHosts(src, 'allowed_hosts', raw.allowed_hosts);
  return out;
}

function checkHosts(src: Source, field: string, v: unknown): string[] {
  const items = typeof v === 'string' ? splitCommaList(v) : v;
  if (!Array.isArray(items)) fail(src, field, v, 'a list of host names, e.g. [bridge.example.com]');
  return items.map((h, i) => {
    const s = checkString(src, `${field}[${i}]`, h).toLowerCase();
    if (!/^(\*\.)?[a-z0-9.-]+$/.test(s)) fail(src, `${field}[${i}]`, s, 'a host name without scheme or port (bridge.example.com, *.example.com)');
    return s;
  });
}

export function securityFromEnv(env: NodeJS.ProcessEnv, cwd: string): SecurityValues {
  const src: Source = { label: 'environment' };
  const val = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const out: SecurityValues = {};
  const access: Partial<AccessConfig> = {};
  const mode = val('TURNBRIDGE_ACCESS');
  if (mode) access.mode = checkMode(src, 'TURNBRIDGE_ACCESS', mode);
  const users = val('TURNBRIDGE_ALLOW_USERS');
  if (users) access.allowUsers = checkIdentityList(src, 'TURNBRIDGE_ALLOW_USERS', users);
  const admins = val('TURNBRIDGE_ADMINS');
  if (admins) access.admins = checkIdentityList(src, 'TURNBRIDGE_ADMINS', admins);
  const channels = val('TURNBRIDGE_ALLOW_CHANNELS');
  if (channels) access.channels = checkChannelList(src, 'TURNBRIDGE_ALLOW_CHANNELS', channels);
  const dms = val('TURNBRIDGE_ALLOW_DMS');
  if (dms) access.dms = checkBool(src, 'TURNBRIDGE_ALLOW_DMS', dms);
  if (Object.keys(access).length) out.access = access;

  const limits: Partial<LimitsConfig> = {};
  const int = (name: string, min: number, max: number) => {
    const v = val(name);
    return v === undefined ? undefined : checkInt(src, name, v, min, max);
  };
  const r = int('TURNBRIDGE_MAX_RUNNING_PER_USER', 1, 1000);
  if (r !== undefined) limits.runningPerUser = r;
  const w = int('TURNBRIDGE_MAX_WAITING_PER_USER', 0, 1000);
  if (w !== undefined) limits.waitingPerUser = w;
  const t = int('TURNBRIDGE_MAX_WAITING', 0, 100_000);
  if (t !== undefined) limits.waiting = t;
  const p = int('TURNBRIDGE_MAX_PROMPT_WAITS', 0, 1000);
  if (p !== undefined) limits.promptWaits = p;
  if (Object.keys(limits).length) out.limits = limits;

  const agent: SecurityValues['agent'] = {};
  const ws = val('TURNBRIDGE_WORKSPACE');
  if (ws) agent.workspace = dirPath(cwd, ws);
  const sandbox = val('TURNBRIDGE_SANDBOX');
  if (sandbox) agent.sandbox = checkSandbox(src, 'TURNBRIDGE_SANDBOX', sandbox);
  const runAs = val('TURNBRIDGE_RUN_AS');
  if (runAs) agent.runAs = checkRunAs(src, 'TURNBRIDGE_RUN_AS', runAs);
  if (Object.keys(agent).length) out.agent = agent;

  const hosts = val('TURNBRIDGE_ALLOWED_HOSTS');
  if (hosts) out.allowedHosts = checkHosts(src, 'TURNBRIDGE_ALLOWED_HOSTS', hosts);
  // A token read from NAME_FILE (secret-files.ts) is reported against that variable and file.
  const tokenSource = (name: string): [Source, string] => {
    const file = val(`${name}_FILE`);
    return file ? [{ file: resolve(cwd, file) }, `${name}_FILE`] : [src, name];
  };
  const token = val('TURNBRIDGE_LOCAL_TOKEN');
  if (token) out.localToken = checkToken(...tokenSource('TURNBRIDGE_LOCAL_TOKEN'), token, 'or unset it to have one generated and printed at start-up');
  const metrics = val('TURNBRIDGE_METRICS_TOKEN');
  if (metrics) out.metricsToken = checkToken(...tokenSource('TURNBRIDGE_METRICS_TOKEN'), metrics, 'and give Prometheus the same value (authorization: { credentials_file: … })');
  return out;
}

/**
 * A token sent as `Authorization: Bearer <token>`: 16+ characters, visible ASCII without spaces
 * (a header cannot carry more, and a space would end it). The value is never echoed.
 */
function checkToken(src: Source, field: string, v: string, then: string): string {
  const hint = src.file
    ? `write a token of 16+ visible characters into ${src.file}, e.g. \`openssl rand -hex 16 > ${src.file}\`, ${then}`
    : `use e.g. \`openssl rand -hex 16\` (a file named by ${field}_FILE keeps it out of the environment), ${then}`;
  if (v.length < 16) fail(src, field, '[hidden]', 'at least 16 characters', hint);
  if (!/^[\x21-\x7e]+$/.test(v)) fail(src, field, '[hidden]', 'visible ASCII characters without spaces (it is sent in an Authorization header)', hint);
  return v;
}
