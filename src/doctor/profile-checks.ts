/**
 * Profiles: each one the config names loads, its command is found, the agent CLI behind a ready
 * profile is installed (its --version) and logged in where that can be told, and the agent's cwd
 * exists and is writable.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { BridgeConfig } from '../bridge/api.js';
import { loadProfile, resolveLaunch, type Profile } from '../profile/index.js';
import { AGENT_CLIS } from './agent-clis.js';
import { findCommand } from './find-command.js';
import { fail, pass, type CheckResult } from './types.js';

const S = 'Profiles';

/** Every profile path the config names, the default first. */
export function profilePaths(config: BridgeConfig): string[] {
  return [...new Set([config.defaultProfile, ...config.routes.map((r) => r.profile)])];
}

function shortPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') ? rel : file;
}

function version(file: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, ['--version'], { env, timeout: 10_000, maxBuffer: 64 * 1024 }, (err, stdout) => {
      resolve(err ? undefined : stdout.trim().split('\n')[0]?.slice(0, 80));
    });
  });
}

export async function profileChecks(config: BridgeConfig, env: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const path of profilePaths(config)) out.push(...(await checkProfile(path, env)));
  return out;
}

async function checkProfile(path: string, env: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  const name = shortPath(path);
  let profile: Profile;
  try {
    profile = await loadProfile(path);
  } catch (e) {
    return [fail(S, `${name} does not load: ${(e as Error).message}`, 'fix the profile (docs/profiles.md), or point the route / TURNBRIDGE_PROFILE at another one')];
  }
  const out: CheckResult[] = [pass(S, `${name} loads`)];
  let launch;
  try {
    launch = resolveLaunch(profile, { sessionId: '', sessionName: 'doctor' }, env);
  } catch (e) {
    out.push(fail(S, `${name}: ${(e as Error).message}`, 'create the directory or change `cwd` in the profile'));
    return out;
  }
  const found = findCommand(launch.command, launch.env.PATH ?? env.PATH, launch.cwd);
  if (!found) {
    out.push(fail(S, `${name}: command "${launch.command}" not found${launch.command.includes('/') ? '' : ' on PATH'}`,
      `install it, or fix \`command\` in ${name}`));
  } else {
    out.push(pass(S, `${name}: command ${launch.command} found (${found})`));
  }
  const cli = profile.name ? AGENT_CLIS[profile.name] : undefined;
  if (cli) {
    const binName = launch.env[cli.binEnv] || cli.bin;
    const bin = findCommand(binName, launch.env.PATH ?? env.PATH, launch.cwd);
    if (!bin) {
      out.push(fail(S, `${name}: the ${cli.bin} CLI is not installed ("${binName}" not found${binName.includes('/') ? '' : ' on PATH'})`,
        `${cli.install}, or set ${cli.binEnv} to its path`));
    } else {
      const v = await version(bin, launch.env);
      out.push(v ? pass(S, `${name}: ${cli.bin} ${v}`) : fail(S, `${name}: ${bin} --version failed`, `reinstall it (${cli.install})`));
      const key = cli.keys.find((k) => (launch.env[k] ?? '') !== '');
      const files = cli.loginFiles(env);
      if (key) out.push(pass(S, `${name}: ${key} is set`));
      else if (files === undefined) out.push(pass(S, `${name}: login state cannot be read here; if a turn says "not logged in": ${cli.login}`));
      else if (files.some((f) => existsSync(f))) out.push(pass(S, `${name}: ${cli.bin} is logged in (${files.find((f) => existsSync(f))})`));
      else out.push(fail(S, `${name}: ${cli.bin} is not logged in and no ${cli.keys.join(' / ')} is set`, cli.login));
    }
  }
  try {
    accessSync(launch.cwd, constants.W_OK);
    out.push(pass(S, `${name}: agent cwd ${launch.cwd} is writable`));
  } catch {
    out.push(fail(S, `${name}: agent cwd ${launch.cwd} is not writable`, 'give the bridge user write access to it, or set `cwd` in the profile to a directory it may write'));
  }
  return out;
}
