/**
 * A command of the bridge's own run where its agents run: in the agent box when the launch
 * policy boxes agents (the same layers as a turn's, box-args.ts: the host read-only, the bridge's
 * files and every conversation hidden, no network, no capabilities, as run_as), with only the
 * places it names shown. The bridge's git in a conversation's worktree runs so
 * (bridge/turns/worktree.ts): whatever an agent left for git to run (a hook, core.fsmonitor, a
 * filter, a `.git` file of its own, a nested repository's config) runs with the agent's rights,
 * never the bridge's. Unboxed (`off`, or `auto` where the box cannot start) the command runs on
 * the host as run_as, which is what the agents run as too.
 */
import type { Profile } from '../../profile/types.js';
import type { LaunchPolicy } from '../launch-policy.js';
import { sandboxArgs } from './box-args.js';
import { decideSandbox, sandboxFix } from './probe.js';

/** What a boxed command sees besides the host read-only. */
export interface CommandPlace {
  /** Its working directory: writable. */
  cwd: string;
  /** Shown read-only, under `writable`. */
  shown?: readonly string[];
  /** Written besides the cwd. */
  writable?: readonly string[];
}

/** What to spawn: bwrap around the command (with one more stdio, fd 3, for its info), or the command itself. */
export interface PlacedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  boxed: boolean;
}

/** A profile of no agent: the box's layers only read its directory (none here). */
const NO_PROFILE: Profile = { dir: '', command: '', args: [], env: {}, timeoutSecs: 0, killGraceSecs: 0, streaming: false, permission: false };

/**
 * `command args` placed per the policy (absent: on the host), or the error it must fail with
 * (TURNBRIDGE_SANDBOX=bwrap where the box cannot start).
 */
export function placeCommand(command: string, args: readonly string[], env: Record<string, string>, place: CommandPlace, policy: LaunchPolicy | undefined): PlacedCommand | { error: string } {
  const box = policy?.sandbox && policy.sandbox !== 'off'
    ? decideSandbox(policy.sandbox, { ...(policy.bwrapPath ? { bwrapPath: policy.bwrapPath } : {}), ...(policy.runAs ? { runAs: policy.runAs } : {}) })
    : undefined;
  if (box?.inForce === 'refused') return { error: `the agent sandbox cannot start here (TURNBRIDGE_SANDBOX=bwrap): ${box.problem}. To fix: ${sandboxFix(box.problem)}` };
  if (box?.inForce !== 'bwrap') return { command, args: [...args], env, boxed: false };
  // Every conversation's places are hidden (the workspace root), as in a turn's box; the command's own come back.
  const hidden = { ...policy!, protectedPaths: [...(policy!.protectedPaths ?? []), ...(policy!.defaultCwd ? [policy!.defaultCwd] : [])] };
  const launch = { command, args: [...args], cwd: place.cwd, env, warnings: [], unset: [] };
  const boxed = sandboxArgs(launch, NO_PROFILE, hidden, box.box, { shown: place.shown ?? [], writable: place.writable ?? [] });
  return { command: boxed.command, args: boxed.args, env: { ...env, ...boxed.env }, boxed: true };
}
