import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { TurnbridgeError } from '../errors.js';
import { expandEnvValue, substitutePlaceholders, type PlaceholderValues } from './template.js';
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
export function resolveLaunch(profile: Profile, ctx: LaunchContext, bridgeEnv: NodeJS.ProcessEnv = process.env, defaultCwd = process.cwd()): LaunchSpec {
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
