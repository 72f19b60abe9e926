/**
 * A worktree per conversation (docs/profiles.md, "A project per route"): a route with
 * `workspace:` runs its conversations' agents in that project; with `worktree: true` each
 * conversation gets `git worktree add` of it, in the conversation's own directory, on a branch
 * `turnbridge/<short id>` started from the repository's HEAD (or `worktree_base`), so parallel
 * threads never share a checkout. The agent runs there; its box binds the worktree and the
 * repository's git directory writable (git writes its objects and refs there). `diff` posts the
 * branch against where it started; `worktree remove` removes the worktree (the branch stays);
 * worktrees idle for `worktree_idle_days` with no uncommitted changes are removed by
 * pruneWorktrees. The record of each is in the state (state/worktrees.ts); git operations on one
 * repository run one at a time.
 */
import { createHash } from 'node:crypto';
import { chown, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RouteConfig } from '../../config/types.js';
import type { WorktreeRecord } from '../../state/index.js';
import type { BridgeContext } from './context.js';
import { git } from './git.js';

export const WORKTREE_DIR = 'worktree';
const DAY_MS = 86_400_000;
const DEFAULT_IDLE_DAYS = 14;

/** The branch of a conversation: 12 hex digits of its key's SHA-256 (stable; two conversations meet by chance once in 2^48). */
export function branchOf(conversationKey: string): string {
  return `turnbridge/${createHash('sha256').update(conversationKey).digest('hex').slice(0, 12)}`;
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
  /** Written besides the cwd: the repository's git directory (a worktree's commits land there). */
  writable: string[];
  /** A worktree just made (or made again): said once in the reply. */
  notice?: string;
}

/**
 * The route's project for this turn: its workspace, or (worktree: true) the conversation's
 * worktree of it, made when missing. Undefined for a route without a workspace. Throws when the
 * worktree cannot be made (git's reason).
 */
export async function routePlace(ctx: BridgeContext, route: RouteConfig | undefined, conversation: string, conversationDir: string): Promise<RoutePlace | undefined> {
  if (!route?.workspace) return undefined;
  if (!route.worktree) return { cwd: route.workspace, writable: [] };
  const runAs = ctx.config.agent.runAs;
  const now = ctx.now();
  const had = await ctx.state.worktrees.get(conversation);
  const path = join(conversationDir, WORKTREE_DIR);
  if (had && !had.removed && had.repo === route.workspace && (await exists(join(path, '.git')))) {
    await ctx.state.worktrees.put(conversation, { ...had, usedAt: now });
    return { cwd: had.path, writable: [had.gitDir] };
  }
  const made = await serially(route.workspace, async (): Promise<WorktreeRecord> => {
    const repo = route.workspace!;
    const opts = { cwd: repo, ...(runAs ? { runAs } : {}) };
    const gitDir = resolve(repo, (await git(['rev-parse', '--git-common-dir'], opts)).trim());
    const branch = had?.repo === repo ? had.branch : branchOf(conversation);
    const baseRef = had?.repo === repo ? had.baseRef : (route.worktreeBase ?? 'HEAD');
    const known = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], opts).then(() => true, () => false);
    // A worktree directory git forgot (removed by hand): its entry goes before the name is reused.
    await git(['worktree', 'prune'], opts);
    let base: string;
    if (known) {
      base = had?.repo === repo ? had.base : (await git(['merge-base', baseRef, branch], opts)).trim();
      await git(['worktree', 'add', path, branch], opts);
    } else {
      base = (await git(['rev-parse', '--verify', `${baseRef}^{commit}`], opts)).trim();
      await git(['worktree', 'add', '-b', branch, path, base], opts);
    }
    return { repo, gitDir, path, branch, base, baseRef, idleDays: route.worktreeIdleDays ?? DEFAULT_IDLE_DAYS, createdAt: had?.createdAt ?? now, usedAt: now };
  });
  await ctx.state.worktrees.put(conversation, made);
  const again = had?.repo === route.workspace ? ' again' : '';
  return {
    cwd: made.path,
    writable: [made.gitDir],
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
    const opts = { cwd: record.path, ...(runAs ? { runAs } : {}), env: { GIT_INDEX_FILE: join(dir, 'index') } };
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
  const runAs = ctx.config.agent.runAs;
  await serially(record.repo, async () => {
    const opts = { cwd: record.repo, ...(runAs ? { runAs } : {}) };
    if (await exists(record.path)) await git(['worktree', 'remove', ...(force ? ['--force'] : []), record.path], opts);
    await git(['worktree', 'prune'], opts);
  });
  await ctx.state.worktrees.put(conversation, { ...record, removed: why });
}

/** Whether the worktree holds uncommitted changes (untracked files too); git as `runAs` when set. */
export async function worktreeDirty(record: Pick<WorktreeRecord, 'path'>, runAs?: { uid: number; gid: number }): Promise<boolean> {
  const out = await git(['status', '--porcelain', '--untracked-files=all'], { cwd: record.path, ...(runAs ? { runAs } : {}), maxBytes: 16 * 1048576 });
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
      if (await worktreeDirty(record, ctx.config.agent.runAs)) {
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
