/**
 * git, for the conversations' worktrees (worktree.ts): run without a shell, where the agents run
 * (runner's placeCommand: in the agent box when agents are boxed, as run_as when set), with a
 * small environment and no terminal prompt. An agent can leave code for git in its worktree and
 * its repository (hooks, core.fsmonitor, filters, a `.git` file of its own, a nested repository):
 * whatever git runs of it runs with the agent's rights, not the bridge's (docs/security.md,
 * "Worktrees"). A failure rejects with git's first line of stderr.
 */
import { spawn } from 'node:child_process';
import { placeCommand, type CommandPlace, type LaunchPolicy } from '../../runner/index.js';
import { processEnv } from '../../config/bridge-env.js';

export interface GitOptions {
  /** Its working directory and the places it may write (the box shows nothing else of the agents'). */
  place: CommandPlace;
  /** The bridge's launch policy: the box and run_as its agents get. */
  policy?: LaunchPolicy;
  /** Extra environment (GIT_INDEX_FILE for a diff). */
  env?: Record<string, string>;
  /** Largest output kept (default 1 MiB); more fails with `too large`. */
  maxBytes?: number;
}

export class GitError extends Error {
  constructor(readonly args: readonly string[], message: string, readonly tooLarge = false) {
    super(message);
  }
}

export function git(args: readonly string[], opts: GitOptions): Promise<string> {
  const env = { PATH: processEnv().PATH ?? '/usr/bin:/bin', HOME: processEnv().HOME ?? '/', LANG: 'C', GIT_TERMINAL_PROMPT: '0', ...opts.env };
  const placed = placeCommand('git', args, env, opts.place, opts.policy);
  if ('error' in placed) return Promise.reject(new GitError(args, `git ${args[0]}: ${placed.error}`));
  const runAs = opts.policy?.runAs;
  const max = opts.maxBytes ?? 1048576;
  return new Promise((resolve, reject) => {
    const child = spawn(placed.command, placed.args, {
      cwd: opts.place.cwd, env: placed.env, windowsHide: true,
      // bwrap writes its info (the box init's pid) on fd 3: read and dropped.
      stdio: placed.boxed ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let tooLarge = false;
    child.stdio[3]?.on('data', () => {});
    child.stdout!.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > max) {
        tooLarge = true;
        child.kill('SIGKILL');
        return;
      }
      out.push(d);
    });
    child.stderr!.on('data', (d: Buffer) => { if (err.length < 65536) err += d; });
    child.on('error', (e: NodeJS.ErrnoException) => {
      reject(new GitError(args, e.code === 'ENOENT' ? `${placed.boxed ? 'bwrap' : 'git'} is not installed (or not on PATH)` : `git ${args[0]}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      if (tooLarge) return reject(new GitError(args, `git ${args[0]}: the output is over ${max} bytes`, true));
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
      reject(new GitError(args, `git ${args[0]}: ${(err.trim() || (signal ? `killed by ${signal}` : `exit ${code}`)).split('\n')[0]}`));
    });
  });
}
