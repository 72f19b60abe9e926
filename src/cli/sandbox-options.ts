/**
 * `turnbridge run` and `chat` box their agent as the bridge does (agent.sandbox /
 * TURNBRIDGE_SANDBOX of the configuration start reads, default auto): the same probe, the same
 * refusal for `bwrap` where it cannot start, one warning where `auto` falls back. The agent works
 * where the CLI was started (or in its profile's cwd); hidden from it are the bridge's protected
 * paths (the directory's .env, the data dir, the config file, the secret files), unless the agent
 * works in the directory that holds them. Its HOME is a private one kept between runs
 * (~/.turnbridge/cli-home, 0700) so `--session` resumes.
 *
 * The directory's turnbridge.yaml and .env may make the box required, never take it away: the
 * agent works in that directory and can write both, so `off` from them would let one run's agent
 * unbox the next run there. Only TURNBRIDGE_SANDBOX=off in the invoking environment runs it
 * unsandboxed (docs/security.md).
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BridgeConfig } from '../config/types.js';
import type { Profile } from '../profile/types.js';
import type { RunOptions } from '../runner/types.js';
import type { CliIo } from './io.js';

/** Where a sandbox mode not from the invoking environment came from: the directory's .env, else the config file. */
async function offFrom(io: CliIo, cwd: string): Promise<string> {
  const { dotEnvVars } = await import('../config/bridge-env.js');
  const dotEnv = dotEnvVars(io.env, cwd);
  if (dotEnv.TURNBRIDGE_SANDBOX !== undefined) return resolve(cwd, '.env');
  return resolve(cwd, io.env.TURNBRIDGE_CONFIG ?? dotEnv.TURNBRIDGE_CONFIG ?? 'turnbridge.yaml');
}

export async function cliSandboxOptions(profile: Profile, config: Pick<BridgeConfig, 'agent'>, io: CliIo, cwd = process.cwd()): Promise<Pick<RunOptions, 'launch' | 'dirs'>> {
  const [{ sandboxInForce, sandboxFix }, { holds }] = await Promise.all([import('../runner/sandbox/index.js'), import('../runner/launch-policy.js')]);
  let requested = config.agent.sandbox;
  if (requested === 'off' && io.env.TURNBRIDGE_SANDBOX !== 'off') {
    requested = 'auto';
    io.stderr.write(`warning: agent.sandbox: off in ${await offFrom(io, cwd)} is not taken by turnbridge run and chat (an agent that worked in this directory could have written it): the agent runs in the box, as by default. To run it unsandboxed on purpose, set TURNBRIDGE_SANDBOX=off in your environment.\n`);
  }
  const box = sandboxInForce(requested);
  if (box.inForce === 'off') {
    if (box.requested === 'auto') io.stderr.write(`warning: the sandbox cannot start here (${box.problem}): the agent runs unsandboxed. To fix: ${sandboxFix(box.problem)}\n`);
    return {};
  }
  const agentCwd = profile.cwd === undefined ? resolve(cwd) : undefined;
  // The directory itself stays visible: the agent may work in it, or below it (its profile's cwd).
  const protectedPaths = config.agent.protectedPaths.filter((p) => p !== resolve(cwd) && !(agentCwd && holds(agentCwd, p)));
  const home = join(homedir(), '.turnbridge', 'cli-home');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return { launch: { sandbox: 'bwrap', protectedPaths, bridgeDir: cwd }, dirs: { home } };
}
