/**
 * One-off operations on messages posted before a restart (crash recovery): paced by the same
 * limiters as every reply, at final priority, honouring 429s like MessageSlot does.
 */
import { isTurnbridgeError, RateLimitedError } from '../errors.js';
import type { Logger } from '../log.js';
import { sleep, type LimiterPool } from './limiter-pool.js';
import { MessageSlot } from './message-slot.js';
import type { MessageContent, MessageRef, PermissionPromptView, RateBudget, Surface } from './surface.js';
import type { DeliveryStats } from './types.js';

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

  async function attempt(op: string, budgets: RateBudget[], fn: () => Promise<void>): Promise<boolean> {
    let failures = 0;
    let limited = 0;
    for (;;) {
      try {
        await pool.run(budgets, fn, { priority: 'final' });
        return true;
      } catch (err) {
        if (isTurnbridgeError(err, 'TB_RATE_LIMITED')) {
          pool.penalize(budgets, (err as RateLimitedError).retryAfterMs);
          if (++limited >= 50) break;
          continue;
        }
        failures++;
        logger.warn({ op, attempt: failures, max, err: (err as Error)?.message }, 'recovery operation failed');
        if (failures >= max) break;
        await sleep(Math.min(5000, 250 * 2 ** (failures - 1)));
      }
    }
    logger.error({ op }, 'giving up on a recovery operation');
    return false;
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
      return attempt('prompt', surface.budgets('edit', ref.conversation), () => surface.updatePrompt(ref, view));
    },
    stopStream(ref: MessageRef, final: MessageContent): Promise<boolean> {
      const streaming = surface.streaming;
      if (!streaming?.stopOrphan) return Promise.resolve(true);
      return attempt('stream stop', streaming.budgets('stop', ref.conversation), () => streaming.stopOrphan!(ref, final));
    },
  };
}
