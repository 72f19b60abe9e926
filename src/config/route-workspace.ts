/**
 * A route's project (docs/profiles.md, "A project per route, a worktree per thread"): `workspace:`
 * is the directory its conversations' agents run in; `worktree: true` gives each conversation a
 * git worktree of it on a branch of its own (`worktree_base:` the ref branches start from, else
 * the repository's HEAD; `worktree_idle_days:` when an idle, clean one is removed). Checked once at
 * start-up, after the route's fields were read (schema.ts ROUTE): the directory exists, and for
 * worktrees it is a git repository and the base names a commit.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fail } from './field-checks.js';
import type { At } from './table.js';
import { processEnv } from './bridge-env.js';

interface RouteWorkspace {
  workspace?: string;
  worktree?: boolean;
  worktreeBase?: string;
  worktreeIdleDays?: number;
}

function git(dir: string, args: string[]): { ok: true } | { ok: false; error: string } {
  try {
    execFileSync('git', ['-C', dir, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: processEnv().PATH, HOME: processEnv().HOME, LANG: 'C', GIT_TERMINAL_PROMPT: '0' } });
    return { ok: true };
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: Buffer };
    return { ok: false, error: err.code === 'ENOENT' ? 'git is not installed (or not on PATH)' : String(err.stderr ?? err.message).trim().split('\n')[0]! };
  }
}

export function checkRouteWorkspace(r: RouteWorkspace, where: (key: keyof RouteWorkspace) => At): void {
  const at = (key: keyof RouteWorkspace) => where(key);
  if (r.workspace !== undefined) {
    let isDir = false;
    try { isDir = statSync(r.workspace).isDirectory(); } catch { /* reported below */ }
    if (!isDir) fail(at('workspace').src, at('workspace').field, r.workspace, 'an existing directory (the project this route\'s agents work in)', `create ${r.workspace} or fix the path (relative paths are resolved against the config file's directory)`);
  }
  if (r.worktree && r.workspace === undefined) {
    fail(at('worktree').src, at('worktree').field, true, 'a route with `workspace:` (the git repository each conversation gets a worktree of)', 'add workspace: /path/to/the/repository to the route');
  }
  for (const key of ['worktreeBase', 'worktreeIdleDays'] as const) {
    if (r[key] !== undefined && !r.worktree) fail(at(key).src, at(key).field, r[key], 'a route with worktree: true', `add worktree: true to the route, or remove ${at(key).field.split('.').pop()}`);
  }
  if (!r.worktree) return;
  const repo = git(r.workspace!, ['rev-parse', '--show-toplevel']);
  if (!repo.ok) fail(at('workspace').src, at('workspace').field, r.workspace, 'a git repository (worktree: true)', `${repo.error}; run git init there, or set worktree: false`);
  const base = r.worktreeBase ?? 'HEAD';
  if (!git(r.workspace!, ['rev-parse', '--verify', '--quiet', `${base}^{commit}`]).ok) {
    if (r.worktreeBase) fail(at('worktreeBase').src, at('worktreeBase').field, base, 'a branch, tag or commit of the repository', `git -C ${r.workspace} branch --list shows the branches`);
    fail(at('workspace').src, at('workspace').field, r.workspace, 'a repository with a first commit (HEAD names none yet)', `commit something in ${r.workspace} first`);
  }
}
