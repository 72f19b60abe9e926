/**
 * What must hold for a profile before any turn runs it, checked once at start-up (every profile
 * the config names), by `run` / `chat` (the one they are given) and by the doctor, so that all
 * three say the same thing: the file loads (no unknown field), its command is found, and the
 * agent's working directory is one a turn may use. Each step throws the TurnbridgeError a turn
 * would fail with; the doctor turns them into ✗ lines.
 */
import type { BridgeConfig } from '../config/types.js';
import { existsSync } from 'node:fs';
import { TurnbridgeError, isTurnbridgeError, problemLines } from '../errors.js';
import { loadProfile, resolveLaunch, type LaunchSpec, type Profile } from '../profile/index.js';
import { checkAgentCwd, launchPolicyOf, type LaunchPolicy } from '../runner/launch-policy.js';
import { findCommand } from '../runner/index.js';

/** Where agents run: the bridge's own launch policy (create-bridge.ts makes the same). */
export type AgentPlace = LaunchPolicy & { defaultCwd: string };

export function agentPlace(config: BridgeConfig): AgentPlace {
  return { ...launchPolicyOf(config.agent), defaultCwd: config.agent.workspace };
}

/** Every profile path the config names, the default first. */
export function profilePaths(config: BridgeConfig): string[] {
  return [...new Set([config.defaultProfile, ...config.routes.map((r) => r.profile), ...(config.dm ? [config.dm.profile] : [])])];
}

export interface ProfileLaunch {
  launch: LaunchSpec;
  /** The workspace does not exist yet: the bridge creates it at start (create-bridge.ts). */
  workspacePending: boolean;
}

/**
 * The launch a turn would get (argv, env, cwd), with the cwd held to the launch policy: a
 * profile `cwd:` must exist and must not hold the bridge's directory, .env or data (TB_CWD_UNSAFE).
 */
export function profileLaunch(profile: Profile, env: NodeJS.ProcessEnv, place: AgentPlace): ProfileLaunch {
  const workspacePending = profile.cwd === undefined && !existsSync(place.defaultCwd);
  // A workspace still to be created stands in as '/' for resolving the rest (only a relative command uses cwd).
  const launch = resolveLaunch(profile, { sessionId: '', sessionName: 'check' }, env, workspacePending ? '/' : place.defaultCwd);
  if (workspacePending) launch.cwd = place.defaultCwd;
  checkAgentCwd(launch.cwd, place, profile);
  return { launch, workspacePending };
}

/** The file the profile's command runs (found as spawn finds it), or TB_PROFILE_INVALID naming `command`. */
export function findProfileCommand(profile: Profile, launch: Pick<LaunchSpec, 'command' | 'env' | 'cwd'>, env: NodeJS.ProcessEnv): string {
  const found = findCommand(launch.command, launch.env.PATH ?? env.PATH, launch.cwd);
  if (found) return found;
  const where = launch.command.includes('/') ? '' : ' on PATH';
  const hint = `install it, or fix "command" in ${profile.file ?? 'the profile'}`;
  throw new TurnbridgeError('TB_PROFILE_INVALID', `${profile.file ?? 'profile'}: field "command": "${launch.command}" is not found${where}. ${hint}`, {
    file: profile.file, field: 'command', found: launch.command, expected: 'an executable', hint,
  });
}

/** Load `path` and check it as a turn would start it; throws the first problem. */
export async function preflightProfile(path: string, env: NodeJS.ProcessEnv, place: AgentPlace): Promise<Profile> {
  const profile = await loadProfile(path);
  const { launch } = profileLaunch(profile, env, place);
  findProfileCommand(profile, launch, env);
  return profile;
}

/** Which setting names a profile path: "routes[2].profile in turnbridge.yaml", or the default's. */
export function namedBy(config: BridgeConfig, path: string): string {
  const i = config.routes.findIndex((r) => r.profile === path);
  const inFile = config.file ? ` in ${config.file}` : '';
  if (path !== config.defaultProfile && i >= 0) return `routes[${i}].profile${inFile}`;
  if (path !== config.defaultProfile && config.dm?.profile === path) return `dm.profile${inFile}`;
  return 'TURNBRIDGE_PROFILE / default_profile';
}

/** Start-up: every profile the config names must pass, or the bridge does not start. */
export async function preflightProfiles(config: BridgeConfig, env: NodeJS.ProcessEnv): Promise<void> {
  const place = agentPlace(config);
  for (const path of profilePaths(config)) {
    try {
      await preflightProfile(path, env, place);
    } catch (err) {
      if (!isTurnbridgeError(err)) throw err;
      const { text, fix } = problemLines(err);
      throw new TurnbridgeError(err.code, `${text} (named by ${namedBy(config, path)})${fix ? `. ${fix}` : ''}`, {
        file: err.file ?? path, ...(err.field ? { field: err.field } : {}), ...(fix ? { hint: fix } : {}), cause: err,
      });
    }
  }
}

/** `run` / `chat`: the profile at `path`, loaded and its command found (agents run in the current directory). */
export async function loadRunnableProfile(path: string, env: NodeJS.ProcessEnv): Promise<Profile> {
  const profile = await loadProfile(path);
  findProfileCommand(profile, resolveLaunch(profile, { sessionId: '', sessionName: 'check' }, env), env);
  return profile;
}
