/**
 * A worktree per conversation (docs/profiles.md, "A project per route"): a route with
 * `workspace:` runs its conversations' agents in that project; with `worktree: true` each
 * conversation gets `git worktree add` of it, in the conversation's own directory, on a branch
 * `turnbridge/<short id>` started from the repository's HEAD (or `worktree_base`), so parallel
 * threads never share a checkout. The agent runs there; its box binds the worktree writable and
 * the repository's git directory read-only but for what its commits write: objects, refs, logs
 * and the worktree's own git directory (treePlace) — its config, hooks, info/ and the other
 * worktrees' git directories are code for whoever runs git there next (the operator, another
 * thread, the bridge). The bridge's own git runs in a box too (git.ts), so what an agent left in
 * its worktree for git to run runs with the agent's rights, never the bridge's. `diff` posts the
 * branch against where it started; `worktree remove` removes the worktree (the branch stays);
 * worktrees idle for `worktree_idle_days` with no uncommitted changes are removed by
 * pruneWorktrees. The record of each is in the state (state/worktrees.ts); git operations on one
 * repository run one at a time.
 */
import { createHash } from 'node:crypto';
import { chown, lstat, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { RouteConfig } from '../../config/types.js';
import type { LaunchPolicy } from '../../runner/index.js';
import type { WorktreeRecord } from '../../state/index.js';
import type { BridgeContext } from './context.js';
import { git, GitError, type GitOptions } from './git.js';

const WORKTREE_DIR = 'worktree';
const DAY_MS = 86_400_000;
const DEFAULT_IDLE_DAYS = 14;

/** Where the conversations' branches are: `refs/heads/turnbridge/`. */
const BRANCHES = 'turnbridge';

/** The branch of a conversation: 12 hex digits of its key's SHA-256 (stable; two conversations meet by chance once in 2^48). */
function branchOf(conversationKey: string): string {
  return `${BRANCHES}/${createHash('sha256').update(conversationKey).digest('hex').slice(0, 12)}`;
}

/** One git operation at a time per repository (worktree add / remove take its locks). */
const chains = new Map<string, Promise<unknown>>();
function serially<T>(repo: string, fn: () => Promise<T>): Promise<T> {
  const next = (chains.get(repo) ?? Promise.resolve()).then(fn, fn);
  chains.set(repo, next.catch(() => undefined));
  return next;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

/** Where a turn's agent runs, beyond its conversation's own directory. */
export interface RoutePlace {
  /** The agent's cwd: the project, or the conversation's worktree of it. */
  cwd: string;
  /** Shown read-only besides the cwd: the repository's git directory. */
  shown: string[];
  /** Written besides the cwd: what a worktree's commits write in that git directory (treePlace). */
  writable: string[];
  /** A worktree just made (or made again): said once in the reply. */
  notice?: string;
}

/**
 * What git in a worktree sees, the agent's and the bridge's alike: the worktree, and of the
 * repository's git directory (read-only) only objects/, logs/, the conversations' branches
 * (refs/heads/turnbridge/) and the worktree's own git directory writable. Not its config, hooks,
 * info/, packed-refs, HEAD, commondir nor the other worktrees' git directories: an agent that
 * could write those would leave code (core.fsmonitor, a hook, a filter, a commondir of its own)
 * for the next git run in the repository. Nor the other refs: the operator's branches (main, the
 * worktree_base new threads start from) and tags are not the agent's to move.
 */
function treePlace(record: Pick<WorktreeRecord, 'path' | 'gitDir' | 'adminDir'>): { cwd: string; shown: string[]; writable: string[] } {
  const { gitDir } = record;
  return {
    cwd: record.path, shown: [gitDir],
    writable: [join(gitDir, 'objects'), join(gitDir, 'logs'), join(gitDir, 'refs', 'heads', BRANCHES), ...(record.adminDir ? [record.adminDir] : [])],
  };
}

/** The bridge's git on the repository itself (worktree add, remove --force): its git directory and the conversation's directory, where the worktree goes. */
function repoGit(ctx: Pick<BridgeContext, 'launchPolicy'>, gitDir: string, conversationDir: string): GitOptions {
  return { place: { cwd: gitDir, writable: [conversationDir] }, policy: ctx.launchPolicy };
}

/**
 * `git worktree prune` on the host (as run_as): it forgets the worktrees whose directory is gone,
 * so it must see every one where it is (a box would show it none of the other conversations' nor
 * the operator's own, and it would forget them all). It runs nothing of the repository's: no
 * hook, no filter, no fsmonitor, only reads `worktrees/` and removes entries there.
 */
function pruneGit(ctx: Pick<BridgeContext, 'launchPolicy'>, gitDir: string): GitOptions {
  return { place: { cwd: gitDir }, policy: { ...ctx.launchPolicy, sandbox: 'off' } };
}

/**
 * A worktree's own git directory, as `git worktree add` wrote it in `<path>/.git`: only a
 * directory directly in `<gitDir>/worktrees` whose `gitdir` names this worktree back, else
 * undefined (the agent's git in it then fails: it changed its `.git`).
 */
async function adminDirOf(gitDir: string, path: string): Promise<string | undefined> {
  try {
    const m = /^gitdir: (.+)$/m.exec(await readFile(join(path, '.git'), 'utf8'));
    const dir = m ? resolve(path, m[1]!.trim()) : undefined;
    if (!dir || dirname(dir) !== join(gitDir, 'worktrees') || !(await lstat(dir)).isDirectory()) return undefined;
    return resolve(dir, (await readFile(join(dir, 'gitdir'), 'utf8')).trim()) === join(path, '.git') ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The route's project for this turn: its workspace, or (worktree: true) the conversation's
 * worktree of it, made when missing. Undefined for a route without a workspace. Throws when the
 * worktree cannot be made (git's reason).
 */
export async function routePlace(ctx: BridgeContext, route: RouteConfig | undefined, conversation: string, conversationDir: string): Promise<RoutePlace | undefined> {
  if (!route?.workspace) return undefined;
  if (!route.worktree) return { cwd: route.workspace, shown: [], writable: [] };
  const now = ctx.now();
  const had = await ctx.state.worktrees.get(conversation);
  const path = join(conversationDir, WORKTREE_DIR);
  if (had && !had.removed && had.repo === route.workspace && (await exists(join(path, '.git')))) {
    // A record from before adminDir was kept: found again from the worktree's .git, checked.
    const record = { ...had, usedAt: now, ...(had.adminDir ? {} : { adminDir: await adminDirOf(had.gitDir, had.path) }) };
    await ctx.state.worktrees.put(conversation, record);
    return treePlace(record);
  }
  const made = await serially(route.workspace, async (): Promise<WorktreeRecord> => {
    const repo = route.workspace!;
    // Where the repository's git directory is: read with the repository shown read-only.
    const found = { place: { cwd: conversationDir, shown: [repo] }, policy: ctx.launchPolicy };
    const gitDir = resolve(repo, (await git(['-C', repo, 'rev-parse', '--git-common-dir'], found)).trim());
    const opts = repoGit(ctx, gitDir, conversationDir);
    const branch = had?.repo === repo ? had.branch : branchOf(conversation);
    const baseRef = had?.repo === repo ? had.baseRef : (route.worktreeBase ?? 'HEAD');
    const known = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], opts).then(() => true, () => false);
    // A worktree directory git forgot (removed by hand): its entry goes before the name is reused.
    await git(['worktree', 'prune'], pruneGit(ctx, gitDir));
    let base: string;
    if (known) {
      base = had?.repo === repo ? had.base : (await git(['merge-base', baseRef, branch], opts)).trim();
      await git(['worktree', 'add', path, branch], opts);
    } else {
      base = (await git(['rev-parse', '--verify', `${baseRef}^{commit}`], opts)).trim();
      await git(['worktree', 'add', '-b', branch, path, base], opts);
    }
    const adminDir = await adminDirOf(gitDir, path);
    return { repo, gitDir, path, ...(adminDir ? { adminDir } : {}), branch, base, baseRef, idleDays: route.worktreeIdleDays ?? DEFAULT_IDLE_DAYS, createdAt: had?.createdAt ?? now, usedAt: now };
  });
  await ctx.state.worktrees.put(conversation, made);
  const again = had?.repo === route.workspace ? ' again' : '';
  return {
    ...treePlace(made),
    notice: `_Working in a worktree of ${made.repo}${again} on branch \`${made.branch}\` (from ${made.baseRef} at ${made.base.slice(0, 7)}): \`diff\` shows its changes, \`worktree remove\` removes it._`,
  };
}

/** What `diff` posts: the patch (empty when nothing changed) and a one-line summary. */
export interface WorktreeDiff {
  patch: Buffer;
  summary: string;
}

/**
 * The branch against the commit it started from, committed and uncommitted changes alike, new
 * files included: an index of its own (a temporary copy, so the agent's staging is untouched)
 * takes the working tree, then `git diff --cached --binary <base>`. `maxBytes`: a larger patch
 * fails with `too large`.
 */
export async function worktreeDiff(ctx: BridgeContext, record: WorktreeRecord, maxBytes: number): Promise<WorktreeDiff> {
  const runAs = ctx.config.agent.runAs;
  // The bridge's own temporary place for the index (never a path in the agent's directories).
  const dir = await mkdtemp(join(tmpdir(), 'tb-diff-'));
  try {
    if (runAs) await chown(dir, runAs.uid, runAs.gid);
    const place = treePlace(record);
    const opts: GitOptions = { place: { ...place, writable: [...place.writable, dir] }, policy: ctx.launchPolicy, env: { GIT_INDEX_FILE: join(dir, 'index') } };
    await git(['read-tree', 'HEAD'], opts);
    await git(['add', '-A'], opts);
    const patch = await git(['diff', '--cached', '--binary', record.base], { ...opts, maxBytes });
    const stat = (await git(['diff', '--cached', '--shortstat', record.base], opts)).trim();
    const what = `\`${record.branch}\` against ${record.baseRef} at ${record.base.slice(0, 7)} (committed and uncommitted changes)`;
    return { patch: Buffer.from(patch), summary: stat ? `${what}: ${stat}` : `No changes on ${what}.` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `worktree remove`: the worktree goes, the branch stays. Refused by git with uncommitted changes unless `force`. */
export async function removeWorktree(ctx: BridgeContext, conversation: string, record: WorktreeRecord, force: boolean, why: 'by-command' | 'idle' = 'by-command'): Promise<void> {
  await serially(record.repo, async () => {
    const opts = repoGit(ctx, record.gitDir, dirname(record.path));
    if (await exists(record.path)) {
      // git's own check runs git status in the worktree, where the agent's code is: it runs in
      // the worktree's place (worktreeDirty), and the removal itself is forced.
      if (!force && (await worktreeDirty(record, ctx.launchPolicy))) throw new GitError(['worktree', 'remove'], `git worktree remove: '${record.path}' contains modified or untracked files, use --force to delete it`);
      await git(['worktree', 'remove', '--force', record.path], opts);
    }
    await git(['worktree', 'prune'], pruneGit(ctx, record.gitDir));
  });
  await ctx.state.worktrees.put(conversation, { ...record, removed: why });
}

/** Whether the worktree holds uncommitted changes (untracked files too); git where the agent runs (policy: the bridge's launch policy). */
export async function worktreeDirty(record: Pick<WorktreeRecord, 'path' | 'gitDir' | 'adminDir'>, policy: LaunchPolicy | undefined): Promise<boolean> {
  const out = await git(['status', '--porcelain', '--untracked-files=all'], { place: treePlace(record), ...(policy ? { policy } : {}), maxBytes: 16 * 1048576 });
  return out.trim() !== '';
}

/** Idle past its worktree_idle_days (and not removed). */
export function isIdle(record: WorktreeRecord, now: number): boolean {
  return !record.removed && now - record.usedAt >= record.idleDays * DAY_MS;
}

/** What one pruning pass did. */
export interface PruneReport {
  removed: string[];
  /** Idle but kept: uncommitted changes (doctor lists these too). */
  kept: string[];
}

/**
 * Remove the worktrees idle for their worktree_idle_days with no uncommitted changes; keep the
 * others (logged). A conversation with a turn held now is never pruned.
 */
export async function pruneWorktrees(ctx: BridgeContext): Promise<PruneReport> {
  const report: PruneReport = { removed: [], kept: [] };
  const busy = new Set(ctx.turns.all().map((t) => t.key));
  for (const { conversation, record } of await ctx.state.worktrees.all()) {
    if (!isIdle(record, ctx.now()) || busy.has(conversation)) continue;
    try {
      if (!(await exists(record.path))) {
        await ctx.state.worktrees.put(conversation, { ...record, removed: 'idle' });
        continue;
      }
      if (await worktreeDirty(record, ctx.launchPolicy)) {
        report.kept.push(record.path);
        ctx.logger.warn({ conversation, path: record.path, branch: record.branch, idleDays: record.idleDays }, 'an idle worktree has uncommitted changes: kept (turnbridge doctor lists it)');
        continue;
      }
      await removeWorktree(ctx, conversation, record, false, 'idle');
      report.removed.push(record.path);
      ctx.logger.info({ conversation, path: record.path, branch: record.branch }, 'idle worktree removed (its branch stays)');
    } catch (err) {
      ctx.logger.warn({ err, conversation, path: record.path }, 'an idle worktree could not be pruned');
    }
  }
  return report;
}
