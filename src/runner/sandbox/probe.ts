/**
 * Whether bubblewrap can make the agent box here, found once at start-up with the very flags a
 * turn uses (isolation.ts), as the user the agents run as (run_as, or the bridge's own): a
 * container without CAP_SYS_ADMIN, Docker's default seccomp profile and kernels with user
 * namespaces off all refuse one of them. The box is tried with its seccomp stage first
 * (seccomp.ts); where only that is refused (no nested user namespace, no helper for this CPU),
 * the box runs without it and says why. TURNBRIDGE_SANDBOX decides what a refusal means.
 */
import { spawnSync } from 'node:child_process';
import { TurnbridgeError } from '../../errors.js';
import type { SandboxMode } from '../launch-policy.js';
import { boxBase } from './isolation.js';
import { seccompStage, stageArgv, type SeccompStage } from './seccomp.js';
import { processEnv } from '../../config/bridge-env.js';


/** What the box is made of here: with its seccomp stage, or without it and why. */
export type BoxSetup = { stage: SeccompStage } | { stage?: undefined; stageProblem: string };

/** Who runs bwrap, and which one (tests put a failing bwrap first on PATH). */
export interface ProbeOptions {
  /** The bubblewrap executable (default `bwrap`, found on PATH). */
  bwrapPath?: string;
  /** The agents' user when the bridge runs as root with run_as. */
  runAs?: { uid: number; gid: number };
  /** PATH to find bwrap and setpriv on (default the bridge's). */
  path?: string;
}

function tryBox(stage: SeccompStage | undefined, o: ProbeOptions): string | null {
  const bwrap = o.bwrapPath ?? 'bwrap';
  const r = spawnSync(bwrap, [...boxBase(stage), '--', ...(stage ? stageArgv(stage) : []), 'true'], {
    encoding: 'utf8', timeout: 10_000, env: { PATH: o.path ?? processEnv().PATH ?? '' }, ...(o.runAs ? { uid: o.runAs.uid, gid: o.runAs.gid } : {}),
  });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${bwrap} is not installed` : `${bwrap} could not start (${code ?? r.error.message})`;
  }
  if (r.status !== 0) return `${bwrap} cannot make the agent box here: ${(r.stderr || `exit ${r.status}`).trim().split('\n')[0]}`;
  return null;
}

/** The box this host allows, or why there is none. */
export function probeBox(o: ProbeOptions = {}): BoxSetup | { problem: string } {
  const uid = o.runAs?.uid ?? process.geteuid?.() ?? 0;
  const stage = seccompStage(uid, o.path);
  if ('helper' in stage) {
    const withStage = tryBox(stage, o);
    if (withStage === null) return { stage };
    const without = tryBox(undefined, o);
    return without === null ? { stageProblem: withStage } : { problem: without };
  }
  const problem = tryBox(undefined, o);
  return problem === null ? { stageProblem: stage.problem } : { problem };
}

/** Why the agent box cannot start here, or null. */
export function sandboxProblem(bwrapPath = 'bwrap'): string | null {
  const p = probeBox({ bwrapPath });
  return 'problem' in p ? p.problem : null;
}

const probed = new Map<string, BoxSetup | { problem: string }>();

/** probeBox, once per bwrap, user and PATH for the life of the process (start-up, then every turn). */
export function cachedProbe(o: ProbeOptions = {}): BoxSetup | { problem: string } {
  const key = JSON.stringify([o.bwrapPath ?? 'bwrap', o.runAs?.uid, o.runAs?.gid, o.path ?? processEnv().PATH]);
  let p = probed.get(key);
  if (!p) probed.set(key, p = probeBox(o));
  return p;
}

/** What a requested mode comes to here. */
export type SandboxDecision =
  | { inForce: 'bwrap'; requested: SandboxMode; box: BoxSetup }
  | { inForce: 'off'; requested: 'off' }
  | { inForce: 'off'; requested: 'auto'; problem: string }
  | { inForce: 'refused'; requested: 'bwrap'; problem: string };

/** auto: the box when the probe passes, else unsandboxed; bwrap: the box or nothing (refused). */
export function decideSandbox(requested: SandboxMode, o: ProbeOptions = {}): SandboxDecision {
  if (requested === 'off') return { inForce: 'off', requested };
  const p = cachedProbe(o);
  if (!('problem' in p)) return { inForce: 'bwrap', requested, box: p };
  return requested === 'auto' ? { inForce: 'off', requested, problem: p.problem } : { inForce: 'refused', requested, problem: p.problem };
}

/** decideSandbox for a process about to start agents: `bwrap` where the box cannot start is a refusal to start (TB_CONFIG_INVALID). */
export function sandboxInForce(requested: SandboxMode, o: ProbeOptions = {}): Exclude<SandboxDecision, { inForce: 'refused' }> {
  const d = decideSandbox(requested, o);
  if (d.inForce !== 'refused') return d;
  throw new TurnbridgeError('TB_CONFIG_INVALID', `TURNBRIDGE_SANDBOX=bwrap, but the sandbox cannot run here: ${d.problem}`, {
    field: 'TURNBRIDGE_SANDBOX', hint: `${sandboxFix(d.problem)}; TURNBRIDGE_SANDBOX=auto runs agents unsandboxed with a warning instead`,
  });
}

/** What doctor and the start-up warning tell an operator to change when the box cannot start. */
export function sandboxFix(problem: string): string {
  if (/not installed/.test(problem)) return 'install bubblewrap (Debian: apt-get install bubblewrap)';
  return 'let bubblewrap make user namespaces: on the host `sysctl -w kernel.unprivileged_userns_clone=1` (Debian) or '
    + '`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu 24.04); in Docker run with '
    + '`--security-opt seccomp=unconfined --security-opt apparmor=unconfined` (or a seccomp profile that allows clone/unshare of namespaces); '
    + 'or set TURNBRIDGE_SANDBOX=off to run agents unsandboxed on purpose (docs/security.md)';
}

/** What to change so the box gets its seccomp stage. */
export function stageFix(problem: string): string {
  if (/setpriv/.test(problem)) return 'install util-linux (it has setpriv), or run agents as a non-root user (TURNBRIDGE_RUN_AS / agent.run_as)';
  if (/no seccomp helper|sandbox-runtime/.test(problem)) return 'run on x64 or arm64 Linux with npm ci\'s @anthropic-ai/sandbox-runtime installed; meanwhile keep host sockets out of the directories agents see (docs/security.md)';
  return 'let the box make one nested user namespace (the helper needs it; as root the bridge also needs CAP_SETFCAP, which Docker grants by default); docs/security.md';
}

/** One line on the seccomp stage for the start-up line and doctor: in force, or why not. */
export function stageLine(box: BoxSetup): string {
  return box.stage
    ? 'unix sockets refused by a seccomp filter'
    : `no seccomp filter (${box.stageProblem}): unix sockets in directories the box shows stay reachable`;
}
