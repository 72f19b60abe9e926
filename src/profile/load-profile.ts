/**
 * A profile YAML read and checked into a Profile: every field validated with an error naming the
 * file, the field and the fix (parseProfileText), unknown fields and placeholders refused.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { closestName, describeFieldError, TurnbridgeError, yamlErrorText } from '../errors.js';
import type { Logger } from '../log.js';
import { parseHostRule } from './allow-hosts.js';
import { unknownPlaceholders } from './launch.js';
import type { Profile, ProfileSandbox } from './types.js';

/** Read and validate a profile file. Throws TurnbridgeError (TB_PROFILE_INVALID, TB_PROFILE_NO_COMMAND). */
export async function loadProfile(path: string, opts: { logger?: Logger } = {}): Promise<Profile> {
  const file = resolve(path);
  let text: string;
  try {
    // Sync: a profile is a few hundred bytes, and fs/promises is a module `turnbridge run` need not load.
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory (point at the profile.yaml inside it)' : `cannot be read (${code ?? (e as Error).message})`;
    throw new TurnbridgeError('TB_PROFILE_INVALID', `profile ${file}: ${why}`, { file, hint: 'pass the path of a profile YAML file, e.g. profiles/echo/profile.yaml', cause: e });
  }
  const { profile, warnings } = parseProfileText(text, file);
  for (const w of warnings) opts.logger?.warn({ profile: file }, w);
  return profile;
}

/** Parse profile YAML text (programmatic use); warnings are dropped, errors thrown. */
export function parseProfile(yamlText: string, file?: string): Profile {
  return parseProfileText(yamlText, file).profile;
}

/* Executors this bridge runs in-process. None yet: a named executor falls back to `command`. */
export const KNOWN_EXECUTORS: readonly string[] = [];

const LAUNCH_FIELDS = ['command', 'args', 'cwd', 'env', 'env_allowlist', 'timeout_secs', 'kill_grace_secs', 'streaming', 'permission', 'executor', 'allow_mentions', 'sandbox'];
/** Hub metadata that may sit beside the launch fields (or beside the `agentproc:` block). */
const METADATA_FIELDS = ['name', 'description', 'cli', 'version', 'author', 'homepage', 'repository', 'license', 'tags', 'requires', 'install', 'readme', 'platforms', 'env_docs', 'examples'];

export interface ParsedProfile {
  profile: Profile;
  /** Things worth a log line (unknown fields, executor fallback, unsupported placeholders). */
  warnings: string[];
}

function invalid(file: string | undefined, field: string, found: unknown, expected: string, hint?: string): TurnbridgeError {
  return new TurnbridgeError('TB_PROFILE_INVALID', describeFieldError(file, field, found, expected, hint), { file, field, found, expected, hint });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function scalarString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function positiveSeconds(raw: Record<string, unknown>, key: string, dflt: number, file: string | undefined, prefix: string): number {
  const v = raw[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw invalid(file, prefix + key, v, 'a positive number of seconds', typeof v === 'number'
      ? `0 or a negative value does not mean "off"; omit ${key} for the default (${dflt})`
      : `write a number without quotes, e.g. ${key}: ${dflt}`);
  }
  return v;
}

function bool(raw: Record<string, unknown>, key: string, dflt: boolean, file: string | undefined, prefix: string): boolean {
  const v = raw[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'boolean') throw invalid(file, prefix + key, v, 'true or false');
  return v;
}

/**
 * Parse and validate profile YAML. Accepts the plain layout (launch fields at the top level) and the
 * AgentProc profile hub layout (launch fields under a top-level `agentproc:` key beside metadata).
 */
export function parseProfileText(text: string, file?: string): ParsedProfile {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new TurnbridgeError('TB_PROFILE_INVALID', `${file ?? 'profile'}: not valid YAML: ${yamlErrorText(e)}`, {
      file, hint: 'fix the YAML syntax there (indentation, quotes, a missing ] or })', cause: e,
    });
  }
  if (!isObject(doc)) throw invalid(file, '(document)', doc, 'a YAML mapping with at least a "command" field');

  const warnings: string[] = [];
  const hub = isObject(doc.agentproc);
  if (doc.agentproc !== undefined && !hub) throw invalid(file, 'agentproc', doc.agentproc, 'a mapping of launch fields (hub layout)');
  const raw: Record<string, unknown> = hub ? (doc.agentproc as Record<string, unknown>) : doc;
  const prefix = hub ? 'agentproc.' : '';

  // A misspelt field would silently fall back to its default (timeout_sec: 10 -> 30 minutes): refuse it.
  for (const key of Object.keys(raw)) {
    if (LAUNCH_FIELDS.includes(key)) continue;
    if (!hub && METADATA_FIELDS.includes(key)) continue;
    const near = closestName(key, LAUNCH_FIELDS);
    const hint = near ? `rename it to "${prefix}${near}"` : `remove it or fix its spelling (the fields: ${LAUNCH_FIELDS.join(', ')}; docs/profiles.md)`;
    throw new TurnbridgeError('TB_PROFILE_INVALID', `${file ?? 'profile'}: unknown field "${prefix}${key}"${near ? ` (did you mean "${prefix}${near}"?)` : ''}. ${hint}`, {
      file, field: prefix + key, found: key, expected: 'a profile field', hint,
    });
  }

  const profileDir = file ? dirname(resolve(file)) : '';

  let executor: string | undefined;
  if (raw.executor !== undefined && raw.executor !== null) {
    if (typeof raw.executor !== 'string' || raw.executor === '') throw invalid(file, `${prefix}executor`, raw.executor, 'an executor name (string)');
    executor = raw.executor;
  }

  let command: string;
  if (raw.command === undefined || raw.command === null || raw.command === '') {
    if (executor !== undefined) {
      throw new TurnbridgeError('TB_PROFILE_NO_COMMAND',
        `${file ?? 'profile'}: executor "${executor}" is not built into turnbridge (built-in executors: none) and the profile has no "command" to fall back to. Add command/args that start the agent.`,
        { file, field: `${prefix}command`, expected: 'a command', found: undefined });
    }
    throw invalid(file, `${prefix}command`, raw.command, 'the agent executable (one argv token, e.g. "node" or "/path with spaces/agent")');
  }
  if (typeof raw.command !== 'string') throw invalid(file, `${prefix}command`, raw.command, 'a string (one argv token)');
  command = raw.command;
  if (executor !== undefined && !KNOWN_EXECUTORS.includes(executor)) {
    warnings.push(`executor "${executor}" is not built into turnbridge (built-in executors: none); running "command" instead`);
  }

  let args: string[] = [];
  if (raw.args !== undefined && raw.args !== null) {
    if (!Array.isArray(raw.args)) throw invalid(file, `${prefix}args`, raw.args, 'a YAML list of argv tokens', 'each list item is one argument, never split');
    args = raw.args.map((a, i) => {
      const s = scalarString(a);
      if (s === undefined) throw invalid(file, `${prefix}args[${i}]`, a, 'a string');
      return s;
    });
  }

  let cwd: string | undefined;
  if (raw.cwd !== undefined && raw.cwd !== null) {
    if (typeof raw.cwd !== 'string' || raw.cwd === '') throw invalid(file, `${prefix}cwd`, raw.cwd, 'a directory path');
    cwd = raw.cwd;
  }

  const env: Record<string, string> = {};
  if (raw.env !== undefined && raw.env !== null) {
    if (!isObject(raw.env)) throw invalid(file, `${prefix}env`, raw.env, 'a mapping of NAME: value');
    for (const [k, v] of Object.entries(raw.env)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw invalid(file, `${prefix}env.${k}`, k, 'an environment variable name ([A-Za-z_][A-Za-z0-9_]*)');
      const s = v === null ? '' : scalarString(v);
      if (s === undefined) throw invalid(file, `${prefix}env.${k}`, v, 'a string value');
      env[k] = s;
    }
  }

  let envAllowlist: string[] | undefined;
  if (raw.env_allowlist !== undefined && raw.env_allowlist !== null) {
    if (!Array.isArray(raw.env_allowlist) || raw.env_allowlist.some((n) => typeof n !== 'string')) {
      throw invalid(file, `${prefix}env_allowlist`, raw.env_allowlist, 'a list of variable names', 'names match exactly, no globbing');
    }
    envAllowlist = raw.env_allowlist as string[];
  }

  const sandbox = parseSandbox(raw.sandbox, file, prefix, profileDir);

  for (const t of [command, ...args, cwd ?? '', ...Object.values(env)]) {
    for (const p of unknownPlaceholders(t)) {
      warnings.push(`${p} is not a supported placeholder (supported: {{SESSION_ID}}, {{SESSION_NAME}}, {{PROFILE_DIR}}; the message always arrives on stdin)`);
    }
  }

  const meta = hub ? doc : raw;
  const profile: Profile = {
    ...(file ? { file: resolve(file) } : {}),
    dir: profileDir,
    command,
    args,
    ...(cwd !== undefined ? { cwd } : {}),
    env,
    ...(envAllowlist ? { envAllowlist } : {}),
    timeoutSecs: positiveSeconds(raw, 'timeout_secs', 1800, file, prefix),
    killGraceSecs: positiveSeconds(raw, 'kill_grace_secs', 5, file, prefix),
    streaming: bool(raw, 'streaming', true, file, prefix),
    permission: bool(raw, 'permission', false, file, prefix),
    ...(executor !== undefined ? { executor } : {}),
    ...(bool(raw, 'allow_mentions', false, file, prefix) ? { allowMentions: true } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(typeof meta.name === 'string' ? { name: meta.name } : {}),
    ...(typeof meta.description === 'string' ? { description: meta.description } : {}),
  };
  return { profile, warnings };
}

/**
 * `sandbox: { read: [~/.claude/.credentials.json], allow_hosts: [api.anthropic.com] }`. A read entry
 * may start with {{PROFILE_DIR}} (files a profile ships beside it, wherever its checkout lies):
 * filled in here, so the box binds a plain absolute path.
 */
function parseSandbox(v: unknown, file: string | undefined, prefix: string, profileDir: string): ProfileSandbox | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw invalid(file, `${prefix}sandbox`, v, 'a mapping with read and allow_hosts lists', 'e.g. sandbox: { read: [~/.claude/.credentials.json], allow_hosts: [api.anthropic.com] }');
  for (const k of Object.keys(v)) {
    if (k !== 'read' && k !== 'allow_hosts') throw invalid(file, `${prefix}sandbox.${k}`, k, 'read or allow_hosts');
  }
  const list = (key: 'read' | 'allow_hosts', check: (s: string) => string | null): string[] => {
    const items = v[key];
    if (items === undefined || items === null) return [];
    if (!Array.isArray(items)) throw invalid(file, `${prefix}sandbox.${key}`, items, 'a YAML list');
    return items.map((item, i) => {
      const problem = typeof item === 'string' && item.trim() !== '' ? check(item.trim()) : 'a non-empty string';
      if (problem) throw invalid(file, `${prefix}sandbox.${key}[${i}]`, item, problem);
      return (item as string).trim();
    });
  };
  const fromProfile = (s: string) => s.startsWith('{{PROFILE_DIR}}/');
  const readProblem = (s: string) => (fromProfile(s)
    ? (profileDir ? null : 'a path without {{PROFILE_DIR}} (this profile has no file)')
    : s === '~' || s.startsWith('~/') || isAbsolute(s) ? null : 'an absolute path, ~/path or {{PROFILE_DIR}}/path (the operator\'s file, shown read-only in the box)');
  return {
    read: list('read', readProblem).map((s) => (fromProfile(s) ? resolve(profileDir, s.slice('{{PROFILE_DIR}}/'.length)) : s)),
    allowHosts: list('allow_hosts', (s) => (parseHostRule(s) ? null : 'host, host:port, *.domain or * (e.g. api.anthropic.com, 127.0.0.1:8080)')).map((s) => parseHostRule(s)!),
  };
}
