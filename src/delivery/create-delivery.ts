/**
 * createDelivery: the one object the bridge uses to reply. Every reply of one Delivery shares
 * the same limiters (one per RateBudget key the Surface names).
 */
import type { Conversation, MessageRef } from '../chat.js';
import { RateLimitedError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { createLimiterPool, type LimiterFactory, type LimiterPool } from './pacing/index.js';
import { createLiveReply, createRecoveryOps, postPrompt } from './reply/index.js';
import { createFilePosts, MessageSlot, splitMessage } from './message/index.js';
import type { Surface } from './surface.js';
import type { Delivery, DeliveryStats } from './types.js';

/** Tries of one activity change through 429s before it is given up (the next change shows anyway). */
const ACTIVITY_ATTEMPTS = 3;

export interface CreateDeliveryOptions {
  logger?: Logger;
  /** Clock for stats and pacing (default Date.now). Timers use the global setTimeout. */
  now?: () => number;
  /** Limiter per RateBudget (default: bottleneck). */
  limiterFactory?: LimiterFactory;
  /** Consecutive non-429 failures per message before giving up (default 5). */
  maxAttempts?: number;
  /** How long a bucket stays slowed after a 429 before recovering (default 60 s). */
  slowdownMs?: number;
}

/** A Delivery plus what the host needs around it (metrics, shutdown). */
export interface DeliveryHandle extends Delivery {
  /** Totals over every reply and say() of this Delivery. */
  readonly totals: Readonly<Pick<DeliveryStats, 'posts' | 'edits' | 'rateLimitWaits'>>;
  /** The shared limiters (for tests and metrics). */
  readonly limiters: LimiterPool;
  /** Drop queued limiter work and release timers. */
  close(): Promise<void>;
}

export function createDelivery(surface: Surface, opts: CreateDeliveryOptions = {}): DeliveryHandle {
  const logger = opts.logger ?? silentLogger;
  const now = opts.now ?? Date.now;
  const pool = createLimiterPool({ factory: opts.limiterFactory, now, logger, slowdownMs: opts.slowdownMs });
  const totals = { posts: 0, edits: 0, rateLimitWaits: 0 };

  const track = (stats: DeliveryStats): DeliveryStats => {
    totals.posts += stats.posts;
    totals.edits += stats.edits;
    totals.rateLimitWaits += stats.rateLimitWaits;
    return stats;
  };

  const recovery = createRecoveryOps({ surface, pool, now, logger, maxAttempts: opts.maxAttempts, track });

  const files = createFilePosts({ surface, pool, logger, maxAttempts: opts.maxAttempts });

  return {
    totals,
    limiters: pool,
    ...recovery,
    ...files,

    open(conversation, options) {
      return createLiveReply({ surface, pool, conversation, options, now, logger, maxAttempts: opts.maxAttempts, onFinished: track });
    },

    prompt(conversation, render) {
      const stats: DeliveryStats = { posts: 0, edits: 0, rateLimitWaits: 0, parts: 0 };
      const post = postPrompt({ surface, pool, conversation, now, logger, stats, maxAttempts: opts.maxAttempts }, render);
      void post.shown.then(() => track({ ...stats }));
      return post;
    },

    async say(conversation: Conversation, text: string, tone?: 'info' | 'warning' | 'error' | 'success'): Promise<MessageRef | undefined> {
      const stats: DeliveryStats = { posts: 0, edits: 0, rateLimitWaits: 0, parts: 0 };
      const deps = { surface, pool, conversation, now, logger, stats, minEditIntervalMs: 0, maxAttempts: opts.maxAttempts };
      let first: MessageRef | undefined;
      let previous: Promise<boolean> | undefined;
      // A notice pings no one: what it quotes (git's error, a rule's command, a name someone typed) may spell a mention.
      const inert = surface.neutralizeMentions ? surface.neutralizeMentions(text) : text;
      for (const part of splitMessage(inert, Math.max(1, surface.capabilities.maxTextChars))) {
        const slot = new MessageSlot(deps, tone ? { text: part, tone } : { text: part }, previous);
        previous = slot.posted;
        if (await slot.posted) first ??= slot.ref;
      }
      track(stats);
      if (!first) logger.error({ platform: surface.platform }, 'a one-off message could not be posted');
      return first;
    },

    async react(source, state) {
      if (!surface.react) return;
      try {
        await pool.run(surface.reactBudgets?.(source, state) ?? [], () => surface.react!(source, state));
      } catch (err) {
        logger.debug({ err, state, platform: surface.platform }, 'reaction failed');
      }
    },

    async activity(conversation, activity, about) {
      if (!surface.showActivity) return;
      const budgets = surface.activityBudgets?.(conversation) ?? [];
      // The surface logs what it refuses; a 429 is waited out here, a few times, like any call.
      for (let attempt = 1; ; attempt++) {
        try {
          await pool.run(budgets, () => surface.showActivity!(conversation, activity, about));
          return;
        } catch (err) {
          if (err instanceof RateLimitedError && attempt < ACTIVITY_ATTEMPTS) {
            pool.penalize(budgets, err.retryAfterMs);
            continue;
          }
          logger.debug({ err, activity, platform: surface.platform }, 'activity not shown');
          return;
        }
      }
    },

    close: () => pool.stop(),
  };
}
