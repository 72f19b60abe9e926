/**
 * `turnbridge run` and `chat` box their agent as the bridge does (TURNBRIDGE_SANDBOX, default
 * auto): the same probe, the same refusal for `bwrap` where it cannot start, one warning where
 * `auto` falls back. The agent works where the CLI was started (or in its profile's cwd); hidden
 * from it are the directory's .env and data dir (TURNBRIDGE_DATA_DIR), unless the agent works in
 * that very directory. Its HOME is a private one kept between runs (~/.turnbridge/cli-home,
 * 0700) so `--session` resumes. The config loader is not used: it is not in the run bundle
 * (test/integration/cli/startup-modules.test.ts), so turnbridge.yaml's agent.sandbox is the bridge's only.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { TurnbridgeError, describeFieldError } from '../errors.js';
import type { Profile } from '../profile/types.js';
import type { RunOptions } from '../runner/types.js';
import type { CliIo } from './io.js';

export async function cliSandboxOptions(profile: Profile, io: CliIo, cwd = process.cwd()): Promise<Pick<RunOptions, 'launch' | 'dirs'>> {
  const [{ decideSandbox, sandboxFix }, { holds }] = await Promise.all([import('../runner/sandbox-probe.js'), import('../runner/launch-policy.js')]);
  const raw = io.env.TURNBRIDGE_SANDBOX?.trim().toLowerCase() || 'auto';
  if (raw !== 'auto' && raw !== 'off' && raw !== 'bwrap') {
    throw new TurnbridgeError('TB_CONFIG_INVALID', describeFieldError(undefined, 'TURNBRIDGE_SANDBOX', io.env.TURNBRIDGE_SANDBOX, 'auto, bwrap or off'), {
      field: 'TURNBRIDGE_SANDBOX', found: io.env.TURNBRIDGE_SANDBOX, expected: 'auto, bwrap or off',
    });
  }
  const box = decideSandbox(raw);
  if (box.inForce === 'refused') {
    throw new TurnbridgeError('TB_CONFIG_INVALID', `TURNBRIDGE_SANDBOX=bwrap, but the sandbox cannot run here: ${box.problem}`, {
      field: 'TURNBRIDGE_SANDBOX', hint: `${sandboxFix(box.problem)}; TURNBRIDGE_SANDBOX=auto runs unsandboxed with a warning instead`,
    });
  }
  if (box.inForce === 'off') {
    if (box.requested === 'auto') io.stderr.write(`warning: the sandbox cannot start here (${box.problem}): the agent runs unsandboxed. To fix: ${sandboxFix(box.problem)}\n`);
    return {};
  }
  const agentCwd = profile.cwd === undefined ? resolve(cwd) : undefined;
  const protectedPaths = [resolve(cwd, '.env'), resolve(cwd, io.env.TURNBRIDGE_DATA_DIR?.trim() || 'data')].filter((p) => !(agentCwd && holds(agentCwd, p)));
  const home = join(homedir(), '.turnbridge', 'cli-home');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return { launch: { sandbox: 'bwrap', protectedPaths, bridgeDir: cwd }, dirs: { home } };
}
