/**
 * The box's seccomp stage: @anthropic-ai/sandbox-runtime's `apply-seccomp` (a static helper it
 * ships for x64 and arm64, the one Claude Code's own sandbox runs) between the box and the agent.
 * It makes a nested user, PID and mount namespace, becomes its init, and runs the agent under a
 * seccomp filter that refuses socket(AF_UNIX) and socket(AF_VSOCK) (so no host unix socket is
 * reachable, wherever it lies: a tmux or Docker socket in a directory the box shows), the
 * io_uring calls (IORING_OP_SOCKET would bypass that rule) and every way to make a new namespace
 * (so `--disable-userns` is not needed; the helper needs one nested user namespace itself).
 * Pipes and socketpair() still work: the agent's stdio and its children's are unaffected.
 *
 * Why a second stage instead of bubblewrap's own `--seccomp`: the egress relay (relay.ts) runs in
 * the box before the agent and must open unix sockets to reach the proxy; only the agent, and
 * what it starts, are filtered. In its nested PID namespace the agent cannot see or ptrace the
 * relay.
 *
 * Where the box's user is root (a root bridge without run_as), the helper's namespace maps uid 0
 * and so needs CAP_SETFCAP in the box (bubblewrap's `--cap-add CAP_SETFCAP`, held only by the
 * relay's shell and the helper), and the agent would start with every capability of that nested
 * namespace: `setpriv` (util-linux) empties its bounding set before the agent runs, so it has
 * none, as without the helper.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { findCommand } from '../find-command.js';
import { processEnv } from '../../config/bridge-env.js';

/** Where the helper appears inside the box (the bridge's node_modules is hidden there). */
const BOX_HELPER_PATH = '/run/turnbridge/apply-seccomp';

/** The helper in use for a box, as the probe found it. */
export interface SeccompStage {
  /** apply-seccomp on the host. */
  helper: string;
  /** setpriv on the host, when the box's user is root (it drops the nested namespace's capabilities). */
  setpriv?: string;
}

/** The helper shipped for this machine's architecture, or why there is none. */
function findHelper(): { path: string } | { problem: string } {
  const arch = process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : undefined;
  if (process.platform !== 'linux' || !arch) return { problem: `no seccomp helper for ${process.platform}/${process.arch} (x64 and arm64 Linux only)` };
  let pkg: string;
  try {
    pkg = dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime/package.json'));
  } catch {
    return { problem: '@anthropic-ai/sandbox-runtime is not installed (npm ci)' };
  }
  const path = join(pkg, 'vendor', 'seccomp', arch, 'apply-seccomp');
  return existsSync(path) ? { path } : { problem: `${path} is missing (reinstall @anthropic-ai/sandbox-runtime)` };
}

/** The stage for a box whose user is `uid` (0: setpriv is needed too), or why it cannot be had. */
export function seccompStage(uid: number, path = processEnv().PATH): SeccompStage | { problem: string } {
  const helper = findHelper();
  if ('problem' in helper) return helper;
  if (uid !== 0) return { helper: helper.path };
  const setpriv = findCommand('setpriv', path, '/');
  return setpriv ? { helper: helper.path, setpriv } : { problem: 'setpriv (util-linux) is not on PATH: the helper would leave a root agent its capabilities' };
}

/**
 * bubblewrap flags the stage needs (after `--cap-drop ALL` and a tmpfs on /run): the helper
 * bound in, CAP_SETFCAP for a root box, and the helper's switches as the bridge sets them, not
 * as a profile's env might (SRT_ALLOW_NESTED_USERNS=1 would lift the namespace filter).
 */
export function stageFlags(stage: SeccompStage): string[] {
  return [
    '--ro-bind', stage.helper, BOX_HELPER_PATH, ...(stage.setpriv ? ['--cap-add', 'CAP_SETFCAP'] : []),
    '--setenv', 'SRT_ALLOW_NESTED_USERNS', '0', '--unsetenv', 'SRT_OBSERVE_SOCK', '--unsetenv', 'SRT_ENCODED_CMD', '--unsetenv', 'SRT_DEBUG',
  ];
}

/** The argv prefix that runs a command under the filter (and without capabilities). */
export function stageArgv(stage: SeccompStage): string[] {
  return [BOX_HELPER_PATH, ...(stage.setpriv ? [stage.setpriv, '--bounding-set=-all', '--inh-caps=-all', '--'] : [])];
}
