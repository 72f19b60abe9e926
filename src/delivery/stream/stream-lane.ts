/**
 * StreamLane: the answer of one reply streamed natively (Surface.streaming), coalesced (one call
 * in flight, everything pending goes in the next append, at most one append per interval) and
 * paced through the shared limiters. A part that would pass `maxChars` is stopped at a clean
 * boundary (an open code fence is closed and reopened in the next part). When streaming is not
 * available (start answers null) or a stream breaks, the lane stops and hands the text it could
 * not stream back to the reply, which goes on with post + edit.
 *
 * The first start waits at most `startGraceMs` for its (Tier 2) budget, so a busy workspace never
 * delays the first text: then the lane either falls back (post + edit for this reply) or, with
 * `handOver`, parks: the reply shows the answer through edits meanwhile, and when the start's turn
 * comes `handOver()` says what the reply has not shown yet, which the stream carries from there.
 */
import type { Conversation, MessageContent, MessageRef, UserRef } from '../../chat.js';
import type { Logger } from '../../log.js';
import { attempt, describeFailure, type LimiterPool, type RunPriority } from '../pacing/index.js';
import { openFenceAt } from '../message/index.js';
import { beginFinish, closed, cutPart, fallenOf, opened, sendableEnd, streamOf, type LaneEnd, type LaneState, type LateStart, type PartCut } from './stream-lane-state.js';
import type { NativeStream, NativeStreaming, RateBudget } from '../surface.js';
import type { DeliveryStats } from '../types.js';

export interface StreamLaneDeps {
  streaming: NativeStreaming;
  pool: LimiterPool;
  conversation: Conversation;
  recipient?: UserRef;
  now: () => number;
  logger: Logger;
  stats: DeliveryStats;
  /** Least gap between two calls of this lane, in ms. */
  minIntervalMs: number;
  /** Consecutive non-429 failures of one call before giving up (default 5). */
  maxAttempts?: number;
  /** Consecutive 429s of one call before giving up (default 50). */
  max429?: number;
  /** The first start call is made after this (the control message's post), so the thread keeps its order. */
  after?: Promise<unknown>;
  /** The first streamed text is visible. */
  onShown?: () => void;
  /**
   * The lane stopped streaming while the reply runs: `leftover` is the answer text not streamed
   * (a reopened fence first when needed); `streamed` says whether any message was streamed.
   */
  onFallback?: (leftover: string, streamed: boolean) => void;
  /** Longest wait for the first start's budget before the reply shows text some other way (default: no limit). */
  startGraceMs?: number;
  /**
   * Hand-over mode: called when the first start waited past the grace, with every answer character
   * pushed so far; the reply shows the answer through edits from now on (no more push()).
   */
  onPark?: (text: string) => void;
  /**
   * Hand-over mode: called when the parked start's turn comes. Returns the answer markdown the
   * reply has not shown (the stream starts with it and the reply pushes to the lane again), or ''
   * when the edits already show everything (the reply then stays with post + edit).
   */
  handOver?: () => string;
}

/** handOver() had nothing to give: no start was made. */
const NOT_NOW = Symbol('not now');

export type { LaneEnd, LaneState } from './stream-lane-state.js';

export class StreamLane {
  /** The streamed messages, in order. */
  readonly refs: MessageRef[] = [];
  private state: LaneState = { kind: 'live' };
  /** Answer text of the current part (may start with a reopened fence). */
  private text = '';
  /** Characters of `text` the platform has. */
  private sent = 0;
  /** Aborted when the reply finishes (drops a first start still waiting for its budget). */
  private readonly finished = new AbortController();
  private lastSentAt?: number;
  private pumping?: Promise<void>;
  private wake?: () => void;
  private readonly max: number;
  /** The first start call, once made (settles when it answered): a record for startSettled(), not a state. */
  private starting?: Promise<void>;

  constructor(private readonly deps: StreamLaneDeps) {
    this.max = Math.max(16, deps.streaming.maxChars);
  }

  /** Which state the lane is in (for the reply's logs and tests). */
  get kind(): LaneState['kind'] {
    return this.state.kind;
  }

  private get stream(): NativeStream | undefined {
    return streamOf(this.state);
  }

  /** finish() was called (calls overtake live work; nothing more is pushed). */
  private get finishing(): boolean {
    return this.state.kind === 'finishing';
  }

  /** Text is taken and pumped (live, or parked while the reply shows it). */
  private get accepting(): boolean {
    return this.state.kind === 'live' || this.state.kind === 'parked';
  }

  /** Resolves when no first start call is in flight (one still waiting for its budget does not count). */
  startSettled(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  push(delta: string): void {
    if (!this.accepting || !delta) return;
    this.text += delta;
    this.kick();
  }

  /**
   * End the lane: waits for the call in flight, appends `tail` (the final body, outcome line,
   * notices) and stops the stream with it. Without a started stream, everything is leftover.
   */
  async finish(tail: string, tone: MessageContent['tone'], footer?: string): Promise<LaneEnd> {
    this.state = beginFinish(this.state);
    this.finished.abort();
    this.wake?.();
    await this.pumping;
    const fallen = fallenOf(this.state);
    if (fallen) return { leftover: fallen.leftover + tail, streamed: this.refs.length > 0 };
    this.text += tail;
    if (!this.stream) return { leftover: this.text, streamed: this.refs.length > 0 };
    const { closing, rest } = this.text.length > this.max ? this.cut() : { closing: this.text.slice(this.sent), rest: '' };
    // `footer` only on the stream's stop when it is the reply's last message (no text left over for a part after it)
    if (!(await this.stopPart(closing, tone, rest === '' ? footer : undefined))) return { leftover: fallenOf(this.state)?.leftover ?? '', streamed: true };
    return { leftover: rest, streamed: true };
  }

  private kick(): void {
    if (this.pumping || !this.accepting) return;
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.accepting && this.pending()) this.kick();
    });
  }

  private async pump(): Promise<void> {
    while (this.accepting) {
      if (this.text.length > this.max) {
        const { closing, rest, at } = this.cut();
        const seen = this.text.length;
        if (!this.stream) {
          if (!(await this.startPart(closing))) return;
          this.sent = at;
          if (!(await this.stopPart(''))) return;
        } else if (!(await this.stopPart(closing))) {
          return;
        }
        // text pushed while the part was being closed belongs to the next part
        this.text = rest + this.text.slice(seen);
        this.sent = 0;
        continue;
      }
      if (!this.pending()) return;
      const end = this.sendable();
      const wait = this.lastSentAt === undefined ? 0 : this.lastSentAt + this.deps.minIntervalMs - this.deps.now();
      if (wait > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          this.wake = () => { clearTimeout(timer); resolve(); };
        });
        this.wake = undefined;
        continue;
      }
      const ok = this.stream ? await this.appendPending(end) : await this.startPart(this.text.slice(0, end), true);
      if (!ok) return;
    }
  }

  /** Where the current part ends when it is too long. */
  private cut(): PartCut {
    return cutPart(this.text, this.sent, this.max);
  }

  /**
   * Start a streamed part with `markdown`. `growing`: the part is not cut, so the start may carry
   * all the text there is when it goes out; only then does the first start have a grace.
   */
  private async startPart(markdown: string, growing = false): Promise<boolean> {
    const { streaming, conversation, recipient, handOver } = this.deps;
    const budgets = streaming.budgets('start', conversation);
    const start = (): Promise<NativeStream | null> => {
      if (growing && this.text.length <= this.max) markdown = this.text.slice(0, Math.max(markdown.length, this.sendable()));
      return streaming.start(conversation, { markdown, recipient });
    };
    if (this.refs.length > 0) return this.started(await this.call('start', budgets, start, 'live'), markdown);
    // The first start: asked for at once (the budget wait overlaps the control message's post)
    // but made after that post, so the thread keeps its order; dropped when the reply finishes
    // first (the whole answer then goes into the first message with one edit); past startGraceMs
    // it is dropped too (post + edit) or parks (hand-over).
    const slow = new AbortController();
    let begun = false;
    const late: LateStart = { parked: false, handed: false, markdown: '' };
    const grace = growing ? this.deps.startGraceMs : undefined;
    const timer = grace === undefined ? undefined : setTimeout(() => {
      if (begun || this.finishing) return;
      if (!handOver) slow.abort();
      else {
        late.parked = true;
        this.park();
      }
    }, Math.max(0, grace));
    let r: { ok: true; value: NativeStream | null | typeof NOT_NOW | undefined } | { ok: false };
    try {
      r = await this.call('start', budgets, () => {
        begun = true;
        const call = (async () => {
          await this.deps.after;
          return late.parked ? this.handOverStart(late) : start();
        })();
        this.starting = call.then(() => undefined, () => undefined);
        return call;
      }, 'live', undefined, AbortSignal.any([this.finished.signal, slow.signal]));
    } finally {
      clearTimeout(timer);
    }
    if (r.ok && r.value === NOT_NOW) {
      this.deps.stats.streamCalls = (this.deps.stats.streamCalls ?? 1) - 1; // counted, but no call was made
      // the edits kept up with the answer: this reply stays with post + edit
      this.deps.logger.debug('the answer is already shown through edits; not streaming this reply');
      this.state = { kind: 'fallen', leftover: '' }; // the edits caught up: nothing to hand back
      return false;
    }
    if (r.ok && r.value === undefined) {
      if (this.finishing || !slow.signal.aborted) return false;
      this.deps.logger.debug({ waitedMs: grace }, 'stream start budget is short; this reply uses post + edit');
      this.fallBack();
      return false;
    }
    return this.started(r as { ok: true; value: NativeStream | null } | { ok: false }, late.parked ? late.markdown : markdown);
  }

  /** Hand-over mode: the first start waited too long; the reply shows the answer through edits meanwhile. */
  private park(): void {
    if (this.state.kind !== 'live') {
      this.deps.logger.warn({ state: this.state.kind }, 'stream lane cannot park now; ignored');
      return;
    }
    this.state = { kind: 'parked' };
    const shown = this.text;
    this.text = '';
    this.sent = 0;
    this.deps.logger.debug('stream start budget is short; showing the answer through edits until the stream starts');
    this.deps.onPark?.(shown);
  }

  /** The parked start's turn: start with what the reply has not shown (asked once; retries resend the lane's text). */
  private handOverStart(late: LateStart): Promise<NativeStream | null | typeof NOT_NOW> {
    if (!late.handed) {
      const markdown = this.deps.handOver!();
      if (markdown === '') return Promise.resolve(NOT_NOW);
      late.handed = true;
      this.text = markdown;
    }
    const { streaming, conversation, recipient } = this.deps;
    late.markdown = this.text;
    return streaming.start(conversation, { markdown: late.markdown, recipient });
  }

  private started(r: { ok: true; value: NativeStream | null | undefined } | { ok: false }, markdown: string): boolean {
    const stream = r.ok ? r.value : null;
    if (!stream) {
      if (r.ok) this.deps.logger.debug('native streaming not available here; using post + edit');
      this.fallBack();
      return false;
    }
    this.state = opened(this.state, stream);
    this.refs.push(stream.ref);
    this.sent = markdown.length;
    this.deps.onShown?.();
    return true;
  }

  /** Text to send now; a stream is not started with blank text (it would show an empty message). */
  private pending(): boolean {
    const end = this.sendable();
    return end > this.sent && (this.stream !== undefined || this.text.slice(0, end).trim() !== '');
  }

  private sendable(): number {
    return sendableEnd(this.text, this.max);
  }

  private async appendPending(end: number): Promise<boolean> {
    const stream = this.stream!;
    const delta = this.text.slice(this.sent, end);
    const r = await this.call('append', this.deps.streaming.budgets('append', this.deps.conversation), () => stream.append(delta), 'live', stream);
    if (!r.ok) {
      this.fallBack();
      return false;
    }
    this.sent += delta.length;
    return true;
  }

  private async stopPart(markdown: string, tone?: MessageContent['tone'], footer?: string): Promise<boolean> {
    const stream = this.stream!;
    const final: MessageContent = { text: markdown, ...(tone ? { tone } : {}), ...(footer ? { footer } : {}) };
    const r = await this.call('stop', this.deps.streaming.budgets('stop', this.deps.conversation), () => stream.stop(final), 'final', stream);
    if (!r.ok) {
      this.fallBack();
      return false;
    }
    this.state = closed(this.state);
    return true;
  }

  /** Stop streaming for good; the text not streamed goes back to the reply. */
  private fallBack(): void {
    if (this.state.kind === 'fallen') return;
    const wasFinishing = this.finishing;
    const broken = this.stream;
    const fence = this.sent > 0 ? openFenceAt(this.text, this.sent) : null;
    const leftover = (fence ? `${fence.opener}\n` : '') + this.text.slice(this.sent);
    this.state = { kind: 'fallen', leftover };
    if (broken && !broken.ended) {
      // best effort: do not leave a message spinning
      const budgets = this.deps.streaming.budgets('stop', this.deps.conversation);
      void this.deps.pool.run(budgets, () => broken.stop({ text: '' }), { priority: 'final' }).catch(() => undefined);
    }
    if (!wasFinishing) this.deps.onFallback?.(leftover, this.refs.length > 0);
  }

  /** One stream call through the attempt policy (attempt.ts): 429s honoured, failures retried; `ended` streams are not retried. */
  private async call<T>(
    op: string, budgets: RateBudget[], fn: () => Promise<T>, priority: RunPriority, stream?: NativeStream, signal?: AbortSignal,
  ): Promise<{ ok: true; value: T | undefined } | { ok: false }> {
    const { pool, logger, stats } = this.deps;
    let ran = false;
    const r = await attempt(() => {
      this.lastSentAt = this.deps.now();
      ran = false;
      return pool.run(budgets, () => {
        ran = true;
        return fn();
      }, { priority: this.finishing ? 'final' : priority, signal });
    }, {
      policy: { maxFailures: this.deps.maxAttempts, max429: this.deps.max429 },
      onRateLimited: (retryAfterMs) => pool.penalize(budgets, retryAfterMs),
      stop: () => stream?.ended === true,
      onFailure: (err, next) => {
        if (next.kind === 'after-rate-limit' || (next.kind === 'give-up' && next.why === 'rate-limits')) stats.rateLimitWaits++;
        if (next.kind === 'back-off') logger.warn({ op, attempt: next.failures, max: this.deps.maxAttempts ?? 5, err: describeFailure(err) }, 'stream call failed');
        else if (next.kind === 'give-up' && next.why === 'rate-limits') logger.error({ op, attempts: next.limited }, 'giving up on a stream call after repeated rate limits');
        else if (next.kind === 'give-up') logger.error({ op, attempts: next.failures, err: describeFailure(err) }, 'giving up on native streaming for this reply; continuing with post + edit');
      },
    });
    if (!r.ok) {
      if (r.why === 'stopped') logger.info({ op, err: describeFailure(r.error) }, 'the streamed message ended; continuing with post + edit');
      return { ok: false };
    }
    if (!ran) return { ok: true, value: undefined };
    stats.streamCalls = (stats.streamCalls ?? 0) + 1;
    return { ok: true, value: r.value };
  }
}
