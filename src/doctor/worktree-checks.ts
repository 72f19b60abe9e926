/**
 * Worktrees (routes with `worktree: true`): which routes give each conversation a worktree of
 * their project, and the worktrees the bridge keeps although idle past their worktree_idle_days,
 * because they hold uncommitted changes (it removes only clean ones): each named with its branch
 * and what to do. Reads the state's worktree records; changes nothing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BridgeConfig } from '../config/types.js';
import { silentLogger } from '../log.js';
import { createState, type WorktreeRecord } from '../state/index.js';
import { isIdle, worktreeDirty } from '../bridge/turns/index.js';
import { pass, warn, type CheckResult } from '../check-result.js';
import { launchPolicyOf } from '../runner/index.js';

const S = 'Worktrees';
const DAY_MS = 86_400_000;

export async function worktreeChecks(config: BridgeConfig, now = Date.now()): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  config.routes.forEach((r, i) => {
    if (r.worktree) out.push(pass(S, `routes[${i}]: each conversation works in its own worktree of ${r.workspace} (branches from ${r.worktreeBase ?? 'HEAD'}; clean ones idle ${r.worktreeIdleDays ?? 14} days are removed)`));
    else if (r.workspace) out.push(pass(S, `routes[${i}]: conversations work in ${r.workspace} (one checkout shared by all; worktree: true gives each its own)`));
  });
  if (out.length === 0) return out;
  // The records: never created here (a bridge that never ran has none).
  if (!config.redisUrl && !existsSync(join(config.dataDir, 'turnbridge.sqlite'))) return out;
  const state = createState(config, silentLogger);
  let records: Array<{ conversation: string; record: WorktreeRecord }>;
  try {
    records = await state.worktrees.all();
  } finally {
    await state.close();
  }
  let kept = 0;
  for (const { conversation, record } of records) {
    if (!isIdle(record, now) || !existsSync(record.path)) continue;
    const dirty = await worktreeDirty(record, launchPolicyOf(config.agent)).catch(() => true);
    if (!dirty) continue;
    kept++;
    const days = Math.floor((now - record.usedAt) / DAY_MS);
    out.push(warn(S, `kept although idle ${days} days (uncommitted changes): ${record.path}, branch ${record.branch}, conversation ${conversation}`,
      `commit the changes in its thread (or in ${record.path}) and it is removed as idle, or type \`worktree remove force\` in its thread to throw them away`));
  }
  const live = records.filter((x) => !x.record.removed).length;
  out.push(pass(S, `${live} worktree${live === 1 ? '' : 's'} of conversations${kept ? `, ${kept} idle kept for uncommitted changes` : ''}`));
  return out;
}
