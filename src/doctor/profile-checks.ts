/**
 * Profiles: each one the config names loads, its command is found, the agent CLI behind a ready
 * profile is installed (its --version) and logged in where that can be told, and the cwd agents
 * really get (the profile's `cwd:`, else the agent workspace) is allowed, exists and is writable.
 * The load, command and cwd steps are start-up's own (profile-preflight.ts), so both say the same.
 */
import type { BridgeConfig } from '../config/types.js';
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { problemLines } from '../errors.js';
import { loadProfile, type Profile } from '../profile/index.js';
import { AGENT_CLIS } from './agent-clis.js';
import { findCommand } from '../runner/index.js';
import { agentPlace, findProfileCommand, namedBy, profileLaunch, profilePaths, type AgentPlace, type ProfileLaunch } from './profile-preflight.js';
import { fail, pass, warn, type CheckResult } from '../check-result.js';

const S = 'Profiles';

/** A path relative to the current directory when it lies inside it. */
export function shortPath(file: string): string {
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
  const place = agentPlace(config);
  for (const path of profilePaths(config)) out.push(...(await checkProfile(path, env, place, namedBy(config, path))));
  return out;
}

/** An error as one ✗ line and its fix, each said once; the profile is named unless the text names it. */
function failed(name: string, path: string, err: unknown, fallbackFix: string, who?: string): CheckResult {
  const p = problemLines(err as Error & { hint?: string });
  const text = p.text.includes(path) ? p.text : `${name}: ${p.text}`;
  return fail(S, who ? `${text} (named by ${who})` : text, p.fix ?? fallbackFix);
}

async function checkProfile(path: string, env: NodeJS.ProcessEnv, place: AgentPlace, who: string): Promise<CheckResult[]> {
  const name = shortPath(path);
  let profile: Profile;
  try {
    profile = await loadProfile(path);
  } catch (e) {
    return [failed(name, path, e, 'fix the profile (docs/profiles.md), or point the route / TURNBRIDGE_PROFILE at another one', who)];
  }
  const out: CheckResult[] = [pass(S, `${name} loads`)];
  let resolved: ProfileLaunch;
  try {
    resolved = profileLaunch(profile, env, place);
  } catch (e) {
    out.push(failed(name, path, e, 'create the directory or change `cwd` in the profile', who));
    return out;
  }
  const { launch } = resolved;
  try {
    out.push(pass(S, `${name}: command ${launch.command} found (${findProfileCommand(profile, launch, env)})`));
  } catch (e) {
    out.push(failed(name, path, e, `install it, or fix \`command\` in ${name}`, who));
  }
  const unset = [...new Set(launch.unset)];
  if (unset.length > 0) {
    const shown = unset.slice(0, 4).map((v) => `\${${v}}`).join(', ') + (unset.length > 4 ? ` and ${unset.length - 4} more` : '');
    out.push(pass(S, `${name}: ${unset.length === 1 ? 'one env variable is' : `${unset.length} env variables are`} not set here, so the agent gets ${unset.length === 1 ? 'it' : 'them'} empty: ${shown}`));
  }
  for (const w of launch.warnings) out.push(warn(S, `${name}: ${w}`, 'add the variable to env_allowlist in the profile, or remove it from env'));
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
  const what = profile.cwd === undefined ? 'agent workspace' : 'agent cwd (the profile\'s `cwd:`)';
  // A workspace not there yet is created at start: its nearest existing parent must be writable.
  let dir = launch.cwd;
  while (resolved.workspacePending && !existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
    out.push(pass(S, resolved.workspacePending
      ? `${name}: ${what} ${launch.cwd} does not exist yet; the bridge creates it at start (${dir} is writable)`
      : `${name}: ${what} ${launch.cwd} is writable`));
  } catch {
    out.push(fail(S, `${name}: ${what} ${dir} is not writable`, 'give the bridge user write access to it, or set TURNBRIDGE_WORKSPACE (or `cwd` in the profile) to a directory it may write'));
  }
  return out;
}
