/**
 * Each conversation's git worktree of its route's project (namespace `worktree`, key = the
 * conversation key): where it is, its branch and the commit it started from, when it was last
 * used. Read and written through Keyv (keyv-records.ts), listed from the namespace's entries.
 * Kept after the worktree is removed (`worktree remove`, or idle): the branch stays, and the
 * conversation's next turn adds its worktree again. Never throws: a store failure is logged and
 * reads as no record (the next turn makes the worktree again from its branch).
 */
import type { Logger } from '../log.js';
import type { Guard } from './guard.js';
import { keyvRecords } from './keyv-records.js';
import type { WorktreeRecord } from './records.js';
import type { StateStore } from './store.js';

export interface Worktrees {
  get(conversation: string): Promise<WorktreeRecord | undefined>;
  /** Resolves true once the store holds it. */
  put(conversation: string, record: WorktreeRecord): Promise<boolean>;
  /** Every conversation's record (pruning, doctor). */
  all(): Promise<Array<{ conversation: string; record: WorktreeRecord }>>;
}

const NS = 'worktree';

export function worktreesOn(store: StateStore, guard: Guard, log: Logger): Worktrees {
  const records = keyvRecords<WorktreeRecord>(store, guard, log, { ns: NS, noun: 'worktree' });
  return {
    get: (key) => records.get(key),
    put: (key, record) => records.set(key, record),
    all: () => guard.run('read worktrees', 'all', async () => (await store.entries<WorktreeRecord>(NS)).map((e) => ({ conversation: e.key, record: e.value })), []),
  };
}
