/**
 * git, for the conversations' worktrees (worktree.ts): run without a shell, as the agent's user
 * when the bridge runs agents as another (run_as: the worktree is theirs to write, and git's own
 * checks see the repository's owner), with a small environment and no terminal prompt. A failure
 * rejects with git's first line of stderr.
 */
import { execFile } from 'node:child_process';

export interface GitOptions {
  cwd: string;
  runAs?: { uid: number; gid: number };
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
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', LANG: 'C', GIT_TERMINAL_PROMPT: '0', ...opts.env };
  return new Promise((resolve, reject) => {
    execFile('git', [...args], {
      cwd: opts.cwd, env, encoding: 'utf8', maxBuffer: opts.maxBytes ?? 1048576, windowsHide: true,
      ...(opts.runAs ? { uid: opts.runAs.uid, gid: opts.runAs.gid } : {}),
    }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return reject(new GitError(args, `git ${args[0]}: the output is over ${opts.maxBytes ?? 1048576} bytes`, true));
      if (code === 'ENOENT') return reject(new GitError(args, 'git is not installed (or not on PATH)'));
      reject(new GitError(args, `git ${args[0]}: ${(stderr || err.message).trim().split('\n')[0]}`));
    });
  });
}
