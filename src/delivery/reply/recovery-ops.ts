/**
 * One-off operations on messages posted before a restart (crash recovery): paced by the same
 * limiters as every reply, at final priority, through the same attempt policy (attempt.ts).
 */
import type { Conversation, MessageContent, MessageRef, PermissionPromptView } from '../../chat.js';
import type { Logger } from '../../log.js';
import { attempt, describeFailure, type LimiterPool } from '../pacing/index.js';
import { MessageSlot } from '../message/index.js';
import type { RateBudget, Surface } from '../surface.js';
import type { DeliveryStats, FoundPost } from '../types.js';

export interface RecoveryOpsDeps {
  surface: Surface;
  pool: LimiterPool;
  now: () => number;
  logger: Logger;
  maxAttempts?: number;
  track(stats: DeliveryStats): void;
}

export function createRecoveryOps(deps: RecoveryOpsDeps) {
  const { surface, pool, logger } = deps;
  const max = deps.maxAttempts ?? 5;

  async function once(op: string, budgets: RateBudget[], fn: () => Promise<void>): Promise<boolean> {
    return (await onceWith(op, budgets, fn)).ok;
  }

  async function onceWith<T>(op: string, budgets: RateBudget[], fn: () => Promise<T>) {
    const r = await attempt(() => pool.run(budgets, fn, { priority: 'final' }), {
      policy: { maxFailures: max },
      onRateLimited: (retryAfterMs) => pool.penalize(budgets, retryAfterMs),
      onFailure: (err, next) => {
        if (next.kind !== 'after-rate-limit') logger.warn({ op, attempt: next.failures, max, err: describeFailure(err) }, 'recovery operation failed');
      },
    });
    if (!r.ok) logger.error({ op, why: r.why }, 'giving up on a recovery operation');
    return r;
  }

  return {
    async rewrite(ref: MessageRef, content: MessageContent): Promise<boolean> {
      const stats: DeliveryStats = { posts: 0, edits: 0, rateLimitWaits: 0, parts: 0 };
      const slot = new MessageSlot({ surface, pool, conversation: ref.conversation, now: deps.now, logger, stats, minEditIntervalMs: 0, maxAttempts: deps.maxAttempts }, content, undefined, ref);
      slot.set(content, true);
      const ok = await slot.settle();
      deps.track(stats);
      return ok;
    },
    rewritePrompt(ref: MessageRef, view: PermissionPromptView): Promise<boolean> {
      return once('prompt', surface.budgets('edit', ref.conversation), () => surface.updatePrompt(ref, view));
    },
    async findPosted(conversation: Conversation, marker: string): Promise<FoundPost> {
      const find = surface.findPosted;
      // A platform that cannot be read back has nothing to find (its records are all there is).
      if (!find) return { kind: 'absent' };
      const r = await onceWith('find posted', surface.findBudgets?.(conversation) ?? [], () => find.call(surface, conversation, marker));
      if (!r.ok) return { kind: 'failed' };
      const [first, ...rest] = r.value;
      return first ? { kind: 'found', refs: [first, ...rest] } : { kind: 'absent' };
    },
    stopStream(ref: MessageRef, final: MessageContent): Promise<boolean> {
      const streaming = surface.streaming;
      if (!streaming?.stopOrphan) return Promise.resolve(true);
      return once('stream stop', streaming.budgets('stop', ref.conversation), () => streaming.stopOrphan!(ref, final));
    },
  };
}
