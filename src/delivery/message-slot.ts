/**
 * One chat message of a reply: posted once, then edited toward the latest desired content
 * through the shared limiters, following the coalescing policy. 429s are honoured (the pool
 * blocks and slows the bucket); other failures back off and give up after `maxAttempts`
 * consecutive failures (a later `settle()` gives it a fresh set of attempts).
 */
import { isTurnbridgeError, RateLimitedError } from '../errors.js';
import type { Logger } from '../log.js';
import { nextStep, type CoalesceState } from './coalesce.js';
import type { LimiterPool } from './limiter-pool.js';
import { sleep } from './limiter-pool.js';
import type { Conversation, MessageContent, MessageRef, Surface } from './surface.js';
import type { DeliveryStats } from './types.js';

export interface SlotDeps {
  surface: Surface;
  pool: LimiterPool;
  conversation: Conversation;
  now: () => number;
  logger: Logger;
  stats: DeliveryStats;
  minEditIntervalMs: number;
  /** Consecutive non-429 failures before giving up (default 5). */
  maxAttempts?: number;
  /** Consecutive 429s before giving up (default 50). */
  max429?: number;
  /** Called after the platform confirmed a post/edit. */
  onShown?: (content: MessageContent) => void;
}

const backoffMs = (failures: number): number => Math.min(10_000, 250 * 2 ** (failures - 1));

export class MessageSlot {
  ref?: MessageRef;
  /** Settles when the post landed (true) or was given up (false). */
  posted: Promise<boolean>;
  private readonly state: CoalesceState;
  private failures = 0;
  private limited = 0;
  private gaveUp = false;
  private timer?: ReturnType<typeof setTimeout>;
  private waiters: Array<(ok: boolean) => void> = [];

  constructor(
    private readonly deps: SlotDeps,
    initial: MessageContent,
    after: Promise<unknown> = Promise.resolve(),
  ) {
    this.state = { desired: initial, inFlight: true, notBefore: 0 };
    this.posted = after.then(() => this.post());
  }

  get desired(): MessageContent {
    return this.state.desired;
  }

  get shown(): MessageContent | undefined {
    return this.state.shown;
  }

  set(content: MessageContent): void {
    this.state.desired = content;
    this.kick();
  }

  /** Resolves true once the message shows the desired content, false when it gave up. */
  settle(): Promise<boolean> {
    if (this.gaveUp) {
      this.gaveUp = false;
      this.failures = 0;
      this.limited = 0;
      if (!this.ref) {
        this.state.inFlight = true;
        this.posted = this.post();
      }
    }
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.kick();
    });
  }

  private async post(): Promise<boolean> {
    const { surface, pool, conversation } = this.deps;
    const budgets = surface.budgets('post', conversation);
    for (;;) {
      const content = this.state.desired;
      this.state.lastSentAt = this.deps.now();
      try {
        this.ref = await pool.run(budgets, () => surface.post(conversation, content));
        this.deps.stats.posts++;
        this.state.shown = content;
        this.failures = 0;
        this.limited = 0;
        this.state.inFlight = false;
        this.deps.onShown?.(content);
        this.kick();
        return true;
      } catch (err) {
        if (!this.onFailure(err, budgets, 'post')) {
          this.state.inFlight = false;
          this.giveUp();
          return false;
        }
        if (!isTurnbridgeError(err, 'TB_RATE_LIMITED')) await sleep(backoffMs(this.failures));
      }
    }
  }

  /** Account for a failure; false when the slot should give up. */
  private onFailure(err: unknown, budgets: ReturnType<Surface['budgets']>, op: string): boolean {
    const { logger, stats, pool } = this.deps;
    if (isTurnbridgeError(err, 'TB_RATE_LIMITED')) {
      const retryAfterMs = (err as RateLimitedError).retryAfterMs;
      stats.rateLimitWaits++;
      this.limited++;
      pool.penalize(budgets, retryAfterMs);
      if (this.limited >= (this.deps.max429 ?? 50)) {
        logger.error({ op, attempts: this.limited }, 'giving up on a message after repeated rate limits');
        return false;
      }
      return true;
    }
    this.failures++;
    const max = this.deps.maxAttempts ?? 5;
    logger.warn({ op, attempt: this.failures, max, err: describe(err) }, 'message operation failed');
    if (this.failures >= max) {
      logger.error({ op, attempts: this.failures, err: describe(err) }, 'giving up on a message after repeated failures');
      return false;
    }
    return true;
  }

  private kick(): void {
    if (this.gaveUp || !this.ref) return;
    const step = nextStep(this.state, this.deps.now(), this.deps.minEditIntervalMs);
    if (step.kind === 'idle') {
      this.resolveWaiters(true);
      return;
    }
    if (step.kind === 'busy') return;
    if (step.kind === 'wait') {
      if (this.timer === undefined) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.kick();
        }, step.ms);
      }
      return;
    }
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    void this.edit(this.ref, step.content);
  }

  private async edit(ref: MessageRef, content: MessageContent): Promise<void> {
    const { surface, pool, conversation } = this.deps;
    const budgets = surface.budgets('edit', conversation);
    this.state.inFlight = true;
    this.state.lastSentAt = this.deps.now();
    try {
      await pool.run(budgets, () => surface.edit(ref, content));
      this.deps.stats.edits++;
      this.state.shown = content;
      this.failures = 0;
      this.limited = 0;
      this.state.notBefore = 0;
      this.deps.onShown?.(content);
    } catch (err) {
      if (!this.onFailure(err, budgets, 'edit')) this.giveUp();
      else if (!isTurnbridgeError(err, 'TB_RATE_LIMITED')) this.state.notBefore = this.deps.now() + backoffMs(this.failures);
    } finally {
      this.state.inFlight = false;
    }
    this.kick();
  }

  private giveUp(): void {
    this.gaveUp = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.resolveWaiters(false);
  }

  private resolveWaiters(ok: boolean): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(ok);
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return isTurnbridgeError(err) ? `${err.code}: ${err.message}` : err.message;
  return String(err);
}
