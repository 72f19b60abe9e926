/**
 * Files as delivery posts them (the agent's outbox): each message of files goes through the
 * conversation's file budgets and the same attempt policy as every message (attempt.ts), at final
 * priority. A failure that might have landed (a timeout, a lost answer) is followed by a look on
 * the platform for the post's marker before anything is retried, so one post never shows twice.
 * `groupFiles` cuts a list of files into messages a platform takes (files and bytes a message).
 */
import type { Conversation } from '../../chat.js';
import type { Logger } from '../../log.js';
import { attempt, classify, describeFailure, type LimiterPool } from '../pacing/index.js';
import type { FileLimits, FilePost, Surface } from '../surface.js';
import type { FilesPosted, FoundFiles } from '../types.js';

export interface FilePostDeps {
  surface: Surface;
  pool: LimiterPool;
  logger: Logger;
  maxAttempts?: number;
}

/**
 * Cut `files` (each within limits.maxFileBytes: the caller skipped the rest) into messages of at
 * most maxFiles files and maxMessageBytes bytes, in order.
 */
export function groupFiles<F extends { size: number }>(files: readonly F[], limits: FileLimits): F[][] {
  const groups: F[][] = [];
  let current: F[] = [];
  let bytes = 0;
  for (const f of files) {
    if (current.length > 0 && (current.length >= limits.maxFiles || bytes + f.size > limits.maxMessageBytes)) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(f);
    bytes += f.size;
  }
  if (current.length) groups.push(current);
  return groups;
}

export function createFilePosts(deps: FilePostDeps) {
  const { surface, pool, logger } = deps;

  async function find(conversation: Conversation, post: Pick<FilePost, 'marker' | 'after'> & { names: string[] }): Promise<FoundFiles> {
    const look = surface.findFiles;
    // A platform that cannot be read back has nothing to find (its own records are all there is).
    if (!look) return 'absent';
    const budgets = surface.fileBudgets?.(conversation) ?? [];
    const r = await attempt(() => pool.run(budgets, () => look.call(surface, conversation, post), { priority: 'final' }), {
      policy: { maxFailures: deps.maxAttempts },
      onRateLimited: (ms) => pool.penalize(budgets, ms),
      onFailure: (err, next) => {
        if (next.kind !== 'after-rate-limit') logger.warn({ op: 'find files', next: next.kind, err: describeFailure(err) }, 'could not look for a message of files');
      },
    });
    if (!r.ok) return 'failed';
    return r.value ? 'found' : 'absent';
  }

  async function post(conversation: Conversation, p: FilePost): Promise<FilesPosted> {
    const send = surface.postFiles;
    if (!send) return { ok: false, why: 'unsupported', detail: `${surface.platform} takes no files from the bridge` };
    const budgets = surface.fileBudgets?.(conversation) ?? surface.budgets('post', conversation);
    const query = { marker: p.marker, ...(p.after ? { after: p.after } : {}), names: p.files.map((f) => f.name) };
    // After a failure that may have landed, the next attempt first looks for the post.
    let mayHaveLanded = false;
    const r = await attempt(async () => {
      if (mayHaveLanded && (await find(conversation, query)) === 'found') return;
      await pool.run(budgets, () => send.call(surface, conversation, p), { priority: 'final' });
    }, {
      policy: { maxFailures: deps.maxAttempts },
      onRateLimited: (ms) => pool.penalize(budgets, ms),
      onFailure: (err, next) => {
        if (classify(err).kind === 'transient') mayHaveLanded = true;
        if (next.kind !== 'after-rate-limit') logger.warn({ op: 'post files', files: p.files.length, next: next.kind, err: describeFailure(err) }, 'posting files failed');
      },
    });
    if (r.ok) return { ok: true };
    return { ok: false, why: r.why === 'stopped' ? 'failures' : r.why, detail: describeFailure(r.error) };
  }

  return { postFiles: post, findFiles: find };
}
