/**
 * `turnbridge run` and `chat` box their agent as the bridge does (agent.sandbox /
 * TURNBRIDGE_SANDBOX of the configuration start reads, default auto): the same probe, the same
 * refusal for `bwrap` where it cannot start, one warning where `auto` falls back. The agent works
 * where the CLI was started (or in its profile's cwd); hidden from it are the bridge's protected
 * paths (the directory's .env, the data dir, the config file, the secret files), unless the agent
 * works in the directory that holds them. Its HOME is a private one kept between runs
 * (~/.turnbridge/cli-home, 0700) so `--session` resumes.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BridgeConfig } from '../config/types.js';
import type { Profile } from '../profile/types.js';
import type { RunOptions } from '../runner/types.js';
import type { CliIo } from './io.js';

export async function cliSandboxOptions(profile: Profile, config: Pick<BridgeConfig, 'agent'>, io: CliIo, cwd = process.cwd()): Promise<Pick<RunOptions, 'launch' | 'dirs'>> {
  const [{ sandboxInForce, sandboxFix }, { holds }] = await Promise.all([import('../runner/sandbox/index.js'), import('../runner/launch-policy.js')]);
  const box = sandboxInForce(config.agent.sandbox);
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
