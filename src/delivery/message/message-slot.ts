/**
 * One chat message of a reply: posted once, then edited toward the latest desired content
 * through the shared limiters, following the coalescing policy. Failures follow the attempt
 * policy (attempt.ts): 429s are honoured (the pool blocks and slows the bucket), other failures
 * back off and give up after `maxAttempts` consecutive failures, permanent ones at once (a later
 * `settle()` gives it a fresh set of attempts). Its life (posting, shown, given up, removing,
 * removed) is one SlotLife value (message-slot-state.ts), changed only in `move`.
 */
import type { Conversation, MessageContent, MessageRef } from '../../chat.js';
import type { Logger } from '../../log.js';
import { Attempts, describeFailure, type LimiterPool, type NextAttempt, type RunPriority, sleep } from '../pacing/index.js';
import { canMoveEdit, nextLife, nextStep, priorityOf, refOf, type CoalesceState, type EditStage, type SlotEvent, type SlotFailure, type SlotLife } from './message-slot-state.js';
import type { Surface } from '../surface.js';
import type { DeliveryStats } from '../types.js';

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

/** One edit in the limiter (its stage moves only as canMoveEdit allows). */
interface EditTicket {
  stage: EditStage;
}

/** Move the ticket to `to` if its stage allows; false (and unchanged) otherwise. */
function advance(ticket: EditTicket, to: EditStage): boolean {
  if (!canMoveEdit(ticket.stage, to)) return false;
  ticket.stage = to;
  return true;
}

export class MessageSlot {
  /** Settles when the post landed (true) or was given up (false). */
  posted: Promise<boolean>;
  private readonly state: CoalesceState;
  private readonly attempts: Attempts;
  /** Where the slot is in its life; written only by `move`. */
  private life: SlotLife;
  /** Content of the post/edit the platform is processing now. */
  private sending?: MessageContent;
  private current?: Promise<void>;
  /** The edit in flight (queued in the limiter or sent). */
  private ticket?: EditTicket;
  private timer?: ReturnType<typeof setTimeout>;
  /** Live edits wait until then (holdLive): the final state is about to come. */
  private liveHeldUntil = 0;
  private holdTimer?: ReturnType<typeof setTimeout>;
  /** A post waiting for the hold to end (or for the final state). */
  private holdWaiters: Array<() => void> = [];
  private waiters: Array<(ok: boolean) => void> = [];

  constructor(
    private readonly deps: SlotDeps,
    initial: MessageContent,
    after: Promise<unknown> = Promise.resolve(),
    /** A message posted earlier (before a restart): edited toward `initial`, never posted again. */
    existing?: MessageRef,
  ) {
    this.attempts = new Attempts({ maxFailures: deps.maxAttempts, max429: deps.max429 });
    if (existing) {
      this.life = { kind: 'shown', ref: existing, priority: 'live' };
      this.state = { desired: initial, inFlight: false, notBefore: 0 };
      this.posted = Promise.resolve(true);
      queueMicrotask(() => this.kick());
      return;
    }
    this.life = { kind: 'posting', priority: 'live' };
    this.state = { desired: initial, inFlight: true, notBefore: 0 };
    this.posted = after.then(() => this.post());
  }

  /** The message, once posted (kept while removing and once removed). */
  get ref(): MessageRef | undefined {
    return refOf(this.life);
  }

  /** Deleted from the conversation (retire() removed it). */
  get removed(): boolean {
    return this.life.kind === 'removed';
  }

  /** Why the slot gave up, while it is given up. */
  get failure(): SlotFailure | undefined {
    return this.life.kind === 'given-up' ? this.life.failure : undefined;
  }

  /** The one write of the slot's life: apply `event`, or refuse it (logged; nothing changes). */
  private move(event: SlotEvent): boolean {
    const next = nextLife(this.life, event);
    if (typeof next === 'string') {
      this.deps.logger.warn({ state: this.life.kind, event: event.type, reason: next }, 'message slot change refused');
      return false;
    }
    this.life = next;
    return true;
  }

  get desired(): MessageContent {
    return this.state.desired;
  }

  get shown(): MessageContent | undefined {
    return this.state.shown;
  }

  /** The answer text the user sees or is about to see (the call in flight, else the last confirmed). */
  get committedText(): string {
    return (this.sending ?? this.state.shown)?.text ?? '';
  }

  /** `final`: this is (part of) the reply's final state; its operations get priority from now on. */
  set(content: MessageContent, final = false): void {
    this.state.desired = content;
    if (final && this.priority === 'live') {
      this.move({ type: 'finalize' });
      this.releaseHold();
      if (this.overtakeQueuedEdit()) return;
    }
    this.kick();
  }

  private get priority(): RunPriority {
    return priorityOf(this.life);
  }

  /**
   * The reply's output ended: for `ms`, live edits wait (a queued one is dropped when its turn
   * comes, spending no budget) so that the final state (set(…, true)) goes out as the one edit.
   */
  holdLive(ms: number): void {
    this.liveHeldUntil = this.deps.now() + ms;
    clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(() => {
      this.holdTimer = undefined;
      this.releaseHold();
      this.kick();
    }, ms);
    this.holdTimer.unref?.();
  }

  /** The hold is over before its time: the reply is finishing (its final state follows at once). */
  endHold(): void {
    this.liveHeldUntil = 0;
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    this.releaseHold();
    this.kick();
  }

  private get holdingLive(): boolean {
    return this.priority === 'live' && this.deps.now() < this.liveHeldUntil;
  }

  /** Resolves once live operations may go again: the hold ended or the final state was set. */
  private holdEnded(): Promise<void> {
    return this.holdingLive ? new Promise((resolve) => this.holdWaiters.push(resolve)) : Promise.resolve();
  }

  private releaseHold(): void {
    for (const resume of this.holdWaiters.splice(0)) resume();
  }

  /** Resolves true once the message shows the desired content, false when it gave up. */
  settle(): Promise<boolean> {
    if (this.life.kind === 'removed') return Promise.resolve(true);
    if (this.life.kind === 'given-up') {
      this.move({ type: 'retry' });
      this.attempts.succeeded();
      // never posted: the post starts again (retry moved it back to posting)
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
      // Under the hold (holdLive) a live post waits too, as live edits do: the final state is about
      // to come, and a post of the answer under "working…" would show it as not finished.
      await this.holdEnded();
      // The content is read when the limiter lets the call go, so a queued call carries the latest.
      let content = this.state.desired;
      this.state.lastSentAt = this.deps.now();
      try {
        // undefined: skipped (skipIf)
        const ref: MessageRef | undefined = await pool.run(budgets, () => {
          content = this.state.desired;
          this.sending = content;
          return surface.post(conversation, content);
        }, { priority: this.priority, skipIf: () => this.holdingLive });
        if (ref === undefined) continue; // the hold began while it waited for the limiter
        this.move({ type: 'posted', ref });
        this.deps.stats.posts++;
        this.state.shown = content;
        this.sending = undefined;
        this.attempts.succeeded();
        this.state.inFlight = false;
        this.deps.onShown?.(content);
        this.kick();
        return true;
      } catch (err) {
        this.sending = undefined;
        const next = this.onFailure(err, budgets, 'post');
        if (next.kind === 'give-up') {
          this.state.inFlight = false;
          this.giveUp({ why: next.why, error: err });
          return false;
        }
        if (next.kind === 'back-off') await sleep(next.ms);
      }
    }
  }

  /** Account for a failure (attempt policy): what to do next. A 429 penalizes the buckets it came from. */
  private onFailure(err: unknown, budgets: ReturnType<Surface['budgets']>, op: string): NextAttempt {
    const { logger, stats, pool } = this.deps;
    const next = this.attempts.next(err);
    if (next.kind === 'after-rate-limit') {
      stats.rateLimitWaits++;
      pool.penalize(budgets, next.retryAfterMs);
    } else if (next.kind === 'back-off') {
      logger.warn({ op, attempt: next.failures, max: this.attempts.policy.maxFailures, err: describeFailure(err) }, 'message operation failed');
    } else {
      if (next.why === 'rate-limits') {
        stats.rateLimitWaits++;
        pool.penalize(budgets, (err as { retryAfterMs?: number }).retryAfterMs ?? 0);
        logger.error({ op, attempts: next.limited }, 'giving up on a message after repeated rate limits');
      } else if (next.why === 'permanent') {
        logger.error({ op, err: describeFailure(err) }, 'giving up on a message: the platform refused it for good');
      } else {
        logger.error({ op, attempts: next.failures, err: describeFailure(err) }, 'giving up on a message after repeated failures');
      }
    }
    return next;
  }

  private kick(): void {
    // only a posted message that has not given up and is not being deleted is edited
    if (this.life.kind !== 'shown') return;
    const ref = this.life.ref;
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
    if (this.holdingLive) return; // the hold's timer kicks again; a final set() kicks at once
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.current = this.edit(ref, step.content);
  }

  private async edit(ref: MessageRef, queued: MessageContent): Promise<void> {
    const { surface, pool, conversation } = this.deps;
    const budgets = surface.budgets('edit', conversation);
    const ticket: EditTicket = { stage: 'queued' };
    this.ticket = ticket;
    this.state.inFlight = true;
    this.state.lastSentAt = this.deps.now();
    let content = queued;
    try {
      // Read the content when the limiter lets the call go: a queued live edit then carries the final state.
      await pool.run(budgets, async () => {
        if (!advance(ticket, 'sending')) return;
        content = this.state.desired;
        this.sending = content;
        await surface.edit(ref, content);
      }, { priority: this.priority, skipIf: () => ticket.stage === 'superseded' || (this.holdingLive && advance(ticket, 'superseded')) });
      if (ticket.stage === 'superseded') return;
      this.deps.stats.edits++;
      this.state.shown = content;
      this.attempts.succeeded();
      this.state.notBefore = 0;
      this.deps.onShown?.(content);
    } catch (err) {
      if (ticket.stage === 'superseded') return;
      const next = this.onFailure(err, budgets, 'edit');
      if (next.kind === 'give-up') this.giveUp({ why: next.why, error: err });
      else if (next.kind === 'back-off') this.state.notBefore = this.deps.now() + next.ms;
    } finally {
      if (ticket.stage === 'sending') this.sending = undefined;
      if (this.ticket === ticket) {
        this.ticket = undefined;
        this.state.inFlight = false;
      }
    }
    this.kick();
  }

  /**
   * The final state arrived while a live edit still waits for the limiter: that edit is dropped
   * (it spends no budget) and the final edit waits at final priority, so it overtakes the live
   * edits of other replies instead of waiting behind them.
   */
  private overtakeQueuedEdit(): boolean {
    const ticket = this.ticket;
    if (!ticket || this.life.kind !== 'shown' || !advance(ticket, 'superseded')) return false;
    this.current = this.edit(this.life.ref, this.state.desired);
    return true;
  }

  /**
   * Delete this message (Surface.remove) once it is posted and no edit is in flight. Without
   * `remove`, or when deleting fails for good, the message is edited to `fallback` instead.
   * Resolves true when the message is gone or shows `fallback`.
   */
  async retire(fallback: MessageContent): Promise<boolean> {
    const { surface, pool, conversation } = this.deps;
    // Retiring is this slot's final step: a post still waiting under the output-end hold
    // (holdLive) goes now instead of when the hold runs out (it held the reply's final text 5 s).
    if (this.priority === 'live') this.move({ type: 'finalize' });
    this.releaseHold();
    if (!(await this.posted) || !this.ref) return true;
    const ref = this.ref;
    // refused when a removal already runs or ran: the fallback below then waits for its end
    if (surface.remove && this.move({ type: 'remove' })) {
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.timer = undefined;
      await this.current;
      const budgets = surface.removeBudgets?.(conversation) ?? [];
      this.attempts.succeeded();
      for (;;) {
        try {
          await pool.run(budgets, () => surface.remove!(ref), { priority: 'final' });
          this.move({ type: 'removed' });
          this.resolveWaiters(true);
          return true;
        } catch (err) {
          const next = this.onFailure(err, budgets, 'remove');
          if (next.kind === 'give-up') break;
          if (next.kind === 'back-off') await sleep(next.ms);
        }
      }
      this.move({ type: 'remove-failed' });
      this.attempts.succeeded();
    }
    this.set(fallback, true);
    return this.settle();
  }

  private giveUp(failure: SlotFailure): void {
    this.move({ type: 'give-up', failure });
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
