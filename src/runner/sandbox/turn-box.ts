/**
 * Where one turn runs, decided from the launch policy (run.ts asks before it spawns): in the box
 * (the decision of the start-up probe, probe.ts) with its egress proxy when the profile allows
 * hosts, or on the host; in both, with the profile's declared files (declared-files.ts). And,
 * once spawned, how a boxed turn is ended: its box's init is killed
 * (bwrap reports its pid on --info-fd), so that bwrap, which waits for that init, exits only
 * once the kernel has ended everything in the box; a signal to bwrap itself would end bwrap at
 * once and leave the box's processes dying after the turn was reported over.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loopbackForwards } from '../../profile/allow-hosts.js';
import type { LaunchSpec, Profile } from '../../profile/types.js';
import type { TurnInput, RunOptions } from '../types.js';
import { BOX_INFO_FD, sandboxArgs } from './box-args.js';
import { startEgress, type Egress } from './egress.js';
import { decideSandbox, sandboxFix } from './probe.js';
import { findSocat } from './relay.js';
import { holds } from '../launch-policy.js';
import { declaredEntries, planDeclared, provideDeclared } from './declared-files.js';

/** What run.ts spawns for the turn. */
export interface TurnPlace {
  command: string;
  args: string[];
  launch: LaunchSpec;
  /** In the box: bwrap writes its info (the box init's pid) on stdio[BOX_INFO_FD]. */
  boxed: boolean;
  /** The turn's egress proxy, closed when the turn ends. */
  egress?: Egress;
  /** For the turn's log: declared files left out (declared-files.ts). */
  warnings: string[];
}

/** The box (or the host) for this turn, or the error the turn fails with before anything starts. */
export async function placeTurn(launch: LaunchSpec, profile: Profile, turn: TurnInput, options: RunOptions): Promise<TurnPlace | { error: string }> {
  const policy = options.launch;
  const box = policy?.sandbox && policy.sandbox !== 'off'
    ? decideSandbox(policy.sandbox, { ...(policy.bwrapPath ? { bwrapPath: policy.bwrapPath } : {}), ...(policy.runAs ? { runAs: policy.runAs } : {}) })
    : undefined;
  if (box?.inForce === 'refused') return { error: `The agent sandbox cannot start here (TURNBRIDGE_SANDBOX=bwrap): ${box.problem}. To fix: ${sandboxFix(box.problem)}.` };
  const boxed = box?.inForce === 'bwrap';
  const home = options.dirs?.home !== undefined && launch.env.HOME === options.dirs.home ? options.dirs.home : undefined;
  const who = policy?.runAs ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const declared = planDeclared(declaredEntries(profile, home ?? launch.env.HOME), { boxed, privateHome: home !== undefined, who });
  try {
    await provideDeclared(declared, policy?.runAs);
  } catch (e) {
    return { error: `The agent's declared files (sandbox.read${profile.file ? ` in ${profile.file}` : ''}) could not be put in its HOME ${home}: ${(e as Error).message}` };
  }
  const warnings = declared.skipped.map((s) => `sandbox.read ${s}: the agent runs without it`);
  if (!boxed) return { command: launch.command, args: launch.args, launch, boxed: false, warnings };

  const rules = profile.sandbox?.allowHosts ?? [];
  let egress: { socketPath: string; forwards: ReturnType<typeof loopbackForwards>; socat: string } | undefined;
  let proxy: Egress | undefined;
  if (rules.length > 0) {
    const socat = findSocat();
    if (!socat) return { error: `The agent sandbox's network relay needs socat, which is not installed (Debian: apt-get install socat); the profile${profile.file ? ` ${profile.file}` : ''} allows hosts (sandbox.allow_hosts).` };
    try {
      proxy = await startEgress(rules, policy!.runAs);
    } catch (e) {
      return { error: `The agent sandbox's network proxy could not start: ${(e as Error).message}` };
    }
    egress = { socketPath: proxy.socketPath, forwards: loopbackForwards(rules), socat };
  }
  const files = (turn.attachments ?? []).filter((a) => a.url.startsWith('file:')).map((a) => fileURLToPath(a.url));
  // The workspace root holds every conversation's workspace: hidden in the box, the agent's own
  // (its cwd) bound again, so another conversation's files are not there (docs/security.md).
  const root = options.dirs?.workspace ? policy!.defaultCwd : undefined;
  const boxPolicy = root ? { ...policy!, protectedPaths: [...(policy!.protectedPaths ?? []), root] } : policy!;
  // The outbox (when not under the cwd: a profile with a cwd of its own); a worktree's git directory
  // read-only, with what its commits write (worktree.ts).
  const writable = [...(options.dirs?.outbox ? [options.dirs.outbox] : []), ...(options.dirs?.writable ?? [])].filter((d) => !holds(launch.cwd, d));
  const shown = (options.dirs?.shown ?? []).filter((d) => !holds(launch.cwd, d));
  const args = sandboxArgs(launch, profile, boxPolicy, box.box, { ...(home ? { home } : {}), attachments: files, shown, writable, read: declared.bind, ...(egress ? { egress } : {}) });
  return { command: args.command, args: args.args, launch: { ...launch, env: { ...launch.env, ...args.env } }, boxed: true, ...(proxy ? { egress: proxy } : {}), warnings };
}

/** The box init's pid, once bwrap has written it (undefined before, or when it never does). */
export function watchBoxInit(child: ChildProcess): () => number | undefined {
  let info = '';
  let pid: number | undefined;
  const fd = child.stdio[BOX_INFO_FD];
  if (fd && 'on' in fd) {
    fd.on('data', (d: Buffer) => { info += d.toString('utf8'); });
    fd.on('end', () => {
      const n = Number(/"child-pid"\s*:\s*(\d+)/.exec(info)?.[1]);
      if (Number.isInteger(n) && n > 1) pid = n;
    });
    fd.on('error', () => undefined);
  }
  return () => pid;
}
