/**
 * A profile's launch for one turn (resolveLaunch): argv and cwd with their placeholders filled,
 * the child's environment built in layers (the infrastructure variables, the profile's env with
 * `${VAR}` read from the bridge's environment, nothing else), checked before anything runs. The
 * substitution itself is one pass (below), so nothing a value brings is expanded again.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { TurnbridgeError } from '../errors.js';
import type { LaunchContext, LaunchSpec, Profile } from './types.js';

/** Copied from the bridge's environment when set (spec: child environment, layer 1). Never credentials. */
export const INFRA_ENV = [
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TERM', 'TMPDIR', 'TZ', 'PWD',
  ...(process.platform === 'win32'
    ? ['SystemRoot', 'TEMP', 'TMP', 'USERPROFILE', 'USERNAME', 'PATHEXT', 'COMSPEC', 'APPDATA', 'LOCALAPPDATA', 'PROGRAMDATA', 'NUMBER_OF_PROCESSORS', 'PROCESSOR_ARCHITECTURE', 'OS']
    : []),
];

function expandHome(p: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return join(homedir(), p.slice(2));
  return p;
}

/**
 * Resolve what to spawn for one turn: argv with placeholders, cwd, and the child environment
 * (infra set + profile env after ${VAR} expansion and env_allowlist), nothing else.
 */
export function resolveLaunch(profile: Profile, ctx: LaunchContext, bridgeEnv: NodeJS.ProcessEnv, defaultCwd = process.cwd()): LaunchSpec {
  const warnings: string[] = [];
  const unset: string[] = [];
  const values: PlaceholderValues = { SESSION_ID: ctx.sessionId, SESSION_NAME: ctx.sessionName, PROFILE_DIR: profile.dir };

  const env: Record<string, string> = {};
  for (const name of INFRA_ENV) {
    const v = bridgeEnv[name];
    if (v !== undefined) env[name] = v;
  }
  for (const [name, template] of Object.entries(profile.env)) {
    env[name] = expandEnvValue(template, values, {
      env: bridgeEnv,
      allowlist: profile.envAllowlist,
      onBlocked: (v) => warnings.push(`env.${name}: \${${v}} is set in the bridge's environment but not in env_allowlist, so the agent gets an empty value; add ${v} to env_allowlist to pass it`),
      onUnset: (v) => unset.push(v),
    });
  }

  let cwd = defaultCwd;
  if (profile.cwd !== undefined) {
    const expanded = expandHome(substitutePlaceholders(profile.cwd, values));
    cwd = isAbsolute(expanded) ? expanded : resolve(profile.dir || process.cwd(), expanded);
  }
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    const own = profile.cwd !== undefined;
    throw new TurnbridgeError('TB_CWD_MISSING', `${profile.file ?? 'profile'}: ${own ? 'field "cwd": ' : 'the agent workspace: '}directory ${cwd} does not exist`, {
      file: profile.file, field: own ? 'cwd' : 'TURNBRIDGE_WORKSPACE', found: own ? profile.cwd : cwd, expected: 'an existing directory',
      hint: own ? 'create it or change cwd (relative paths are resolved against the profile directory)' : 'create it, or set TURNBRIDGE_WORKSPACE / agent.workspace to an existing directory',
    });
  }
  if (profile.executor !== undefined) warnings.push(`executor "${profile.executor}" is not built in; spawning command`);

  return {
    command: substitutePlaceholders(profile.command, values),
    args: profile.args.map((a) => substitutePlaceholders(a, values)),
    cwd,
    env,
    warnings,
    unset,
  };
}

/*
 * One-pass substitution: {{PLACEHOLDER}} and (in env values) ${VAR} are replaced in a single scan,
 * so a value that came from a placeholder is never expanded again (a session id of "${SECRET}"
 * stays literal), and no value can add argv tokens (substitution is per token, no shell).
 */
const PLACEHOLDERS = ['SESSION_ID', 'SESSION_NAME', 'PROFILE_DIR'] as const;
export type PlaceholderName = (typeof PLACEHOLDERS)[number];
export type PlaceholderValues = Record<PlaceholderName, string>;

const PLACEHOLDER_ONLY = /\{\{([A-Z_]+)\}\}/g;
const PLACEHOLDER_OR_VAR = /\{\{([A-Z_]+)\}\}|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function placeholder(name: string, values: PlaceholderValues, whole: string): string {
  return (PLACEHOLDERS as readonly string[]).includes(name) ? values[name as PlaceholderName] : whole;
}

function substitutePlaceholders(template: string, values: PlaceholderValues): string {
  return template.replace(PLACEHOLDER_ONLY, (whole, name: string) => placeholder(name, values, whole));
}

export interface VarLookup {
  /** The bridge environment. */
  env: NodeJS.ProcessEnv;
  /** When set, names outside it expand to '' and are reported through onBlocked (only those the environment has). */
  allowlist?: readonly string[];
  onBlocked?(name: string): void;
  /** A name the environment does not have: it expands to '' (an unset variable, allowed or not, is no policy block). */
  onUnset?(name: string): void;
}

function expandEnvValue(template: string, values: PlaceholderValues, lookup: VarLookup): string {
  return template.replace(PLACEHOLDER_OR_VAR, (whole, name: string | undefined, varName: string | undefined) => {
    if (name !== undefined) return placeholder(name, values, whole);
    const v = varName as string;
    if (lookup.env[v] === undefined) {
      lookup.onUnset?.(v);
      return '';
    }
    if (lookup.allowlist && !lookup.allowlist.includes(v)) {
      lookup.onBlocked?.(v);
      return '';
    }
    return lookup.env[v]!;
  });
}

/** Placeholder-like tokens that are not supported (e.g. {{MESSAGE}}), for validation warnings. */
export function unknownPlaceholders(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER_ONLY)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(m[1]!)) out.push(m[0]);
  }
  return out;
}
