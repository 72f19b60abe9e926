/**
 * StreamLane: the answer of one reply streamed natively (Surface.streaming), coalesced (one call
 * in flight, everything pending goes in the next append, at most one append per interval) and
 * paced through the shared limiters. A part that would pass `maxChars` is stopped at a clean
 * boundary (an open code fence is closed and reopened in the next part). When streaming is not
 * available (start answers null) or a stream breaks, the lane stops and hands the text it could
 * not stream back to the reply, which goes on with post + edit.
 */
import { isTurnbridgeError, RateLimitedError } from '../errors.js';
import type { Logger } from '../log.js';
import type { LimiterPool, RunPriority } from './limiter-pool.js';
import { sleep } from './limiter-pool.js';
import { openFenceAt, splitMessageParts } from './split-message.js';
import type { Conversation, MessageContent, MessageRef, NativeStream, NativeStreaming, RateBudget, UserRef } from './surface.js';
import type { DeliveryStats } from './types.js';

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
  /** Wait for this before the first start (the control message), so the thread keeps its order. */
  after?: Promise<unknown>;
  /** The first streamed text is visible. */
  onShown?: () => void;
  /**
   * The lane stopped streaming while the reply runs: `leftover` is the answer text not streamed
   * (a reopened fence first when needed); `streamed` says whether any message was streamed.
   */
  onFallback?: (leftover: string, streamed: boolean) => void;
}

/** What finish() leaves to post + edit: text not streamed ('' = none) and whether anything streamed. */
export interface LaneEnd {
  leftover: string;
  streamed: boolean;
}

const backoffMs = (failures: number): number => Math.min(10_000, 250 * 2 ** (failures - 1));

export class StreamLane {
  /** The streamed messages, in order. */
  readonly refs: MessageRef[] = [];
  private stream?: NativeStream;
  /** Answer text of the current part (may start with a reopened fence). */
  private text = '';
  /** Characters of `text` the platform has. */
  private sent = 0;
  private fallen = false;
  private leftover = '';
  private finishing = false;
  /** Aborted when the reply finishes (drops a first start still waiting for its budget). */
  private readonly finished = new AbortController();
  private lastSentAt?: number;
  private pumping?: Promise<void>;
  private wake?: () => void;
  private readonly max: number;

  constructor(private readonly deps: StreamLaneDeps) {
    this.max = Math.max(16, deps.streaming.maxChars);
  }

  push(delta: string): void {
    if (this.fallen || this.finishing || !delta) return;
    this.text += delta;
    this.kick();
  }

  /**
   * End the lane: waits for the call in flight, appends `tail` (the final body, outcome line,
   * notices) and stops the stream with it. Without a started stream, everything is leftover.
   */
  async finish(tail: string, tone: MessageContent['tone']): Promise<LaneEnd> {
    this.finishing = true;
    this.finished.abort();
    this.wake?.();
    await this.pumping;
    if (this.fallen) return { leftover: this.leftover + tail, streamed: this.refs.length > 0 };
    this.text += tail;
    if (!this.stream) return { leftover: this.text, streamed: this.refs.length > 0 };
    const { closing, rest } = this.text.length > this.max ? this.cut() : { closing: this.text.slice(this.sent), rest: '' };
    if (!(await this.stopPart(closing, tone))) return { leftover: this.leftover, streamed: true };
    return { leftover: rest, streamed: true };
  }

  private kick(): void {
    if (this.pumping || this.fallen || this.finishing) return;
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (!this.fallen && !this.finishing && this.sendable() > this.sent) this.kick();
    });
  }

  private async pump(): Promise<void> {
    await this.deps.after;
    while (!this.fallen && !this.finishing) {
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
      const end = this.sendable();
      if (end <= this.sent) return;
      const wait = this.lastSentAt === undefined ? 0 : this.lastSentAt + this.deps.minIntervalMs - this.deps.now();
      if (wait > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          this.wake = () => { clearTimeout(timer); resolve(); };
        });
        this.wake = undefined;
        continue;
      }
      const ok = this.stream ? await this.appendPending(end) : await this.startPart(this.text.slice(0, end));
      if (!ok) return;
    }
  }

  /** Where the current part ends when it is too long: text to close it with, text of the next part. */
  private cut(): { closing: string; rest: string; at: number } {
    const parts = splitMessageParts(this.text, this.max);
    const first = parts[0]!;
    const at = first.text.length - first.suffix.length;
    if (at >= this.sent) {
      return { closing: this.text.slice(this.sent, at) + first.suffix, rest: (parts[1]?.prefix ?? '') + this.text.slice(at), at };
    }
    // The clean boundary lies inside text already streamed: end the part where the stream is.
    const fence = openFenceAt(this.text, this.sent);
    const nl = this.text[this.sent - 1] === '\n' ? '' : '\n';
    return {
      closing: fence ? `${nl}${fence.closer}` : '',
      rest: (fence ? `${fence.opener}\n` : '') + this.text.slice(this.sent),
      at: this.sent,
    };
  }

  private async startPart(markdown: string): Promise<boolean> {
    const { streaming, conversation, recipient } = this.deps;
    // A first start still waiting for the (Tier 2) budget when the reply finishes is dropped:
    // the whole answer then goes into the first message with one edit.
    const signal = this.refs.length === 0 ? this.finished.signal : undefined;
    const r = await this.call('start', streaming.budgets('start', conversation), () => streaming.start(conversation, { markdown, recipient }), 'live', undefined, signal);
    if (r.ok && r.value === undefined) return false;
    const stream = r.ok ? r.value : null;
    if (!stream) {
      if (r.ok) this.deps.logger.debug('native streaming not available here; using post + edit');
      this.fallBack();
      return false;
    }
    this.stream = stream;
    this.refs.push(stream.ref);
    this.sent = markdown.length;
    this.deps.onShown?.();
    return true;
  }

  /**
   * How far the text may be streamed now. Near the part limit only whole lines go out, so that
   * a part that must end where the stream already is ends at a line break.
   */
  private sendable(): number {
    if (this.text.length > this.max) return this.text.length;
    if (this.text.length <= this.max * 0.75) return this.text.length;
    return this.text.lastIndexOf('\n') + 1;
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

  private async stopPart(markdown: string, tone?: MessageContent['tone']): Promise<boolean> {
    const stream = this.stream!;
    const final: MessageContent = tone ? { text: markdown, tone } : { text: markdown };
    const r = await this.call('stop', this.deps.streaming.budgets('stop', this.deps.conversation), () => stream.stop(final), 'final', stream);
    if (!r.ok) {
      this.fallBack();
      return false;
    }
    this.stream = undefined;
    return true;
  }

  /** Stop streaming for good; the text not streamed goes back to the reply. */
  private fallBack(): void {
    if (this.fallen) return;
    this.fallen = true;
    const fence = this.sent > 0 ? openFenceAt(this.text, this.sent) : null;
    this.leftover = (fence ? `${fence.opener}\n` : '') + this.text.slice(this.sent);
    const broken = this.stream;
    this.stream = undefined;
    if (broken && !broken.ended) {
      // best effort: do not leave a message spinning
      const budgets = this.deps.streaming.budgets('stop', this.deps.conversation);
      void this.deps.pool.run(budgets, () => broken.stop({ text: '' }), { priority: 'final' }).catch(() => undefined);
    }
    if (!this.finishing) this.deps.onFallback?.(this.leftover, this.refs.length > 0);
  }

  /** One stream call with 429s honoured and failures retried; `ended` streams are not retried. */
  private async call<T>(
    op: string, budgets: RateBudget[], fn: () => Promise<T>, priority: RunPriority, stream?: NativeStream, signal?: AbortSignal,
  ): Promise<{ ok: true; value: T | undefined } | { ok: false }> {
    const { pool, logger, stats } = this.deps;
    let failures = 0;
    let limited = 0;
    for (;;) {
      this.lastSentAt = this.deps.now();
      try {
        let ran = false;
        const value = await pool.run(budgets, () => {
          ran = true;
          return fn();
        }, { priority: this.finishing ? 'final' : priority, signal });
        if (!ran) return { ok: true, value: undefined };
        stats.streamCalls = (stats.streamCalls ?? 0) + 1;
        return { ok: true, value };
      } catch (err) {
        if (isTurnbridgeError(err, 'TB_RATE_LIMITED')) {
          stats.rateLimitWaits++;
          pool.penalize(budgets, (err as RateLimitedError).retryAfterMs);
          if (++limited >= (this.deps.max429 ?? 50)) {
            logger.error({ op, attempts: limited }, 'giving up on a stream call after repeated rate limits');
            return { ok: false };
          }
          continue;
        }
        failures++;
        const max = this.deps.maxAttempts ?? 5;
        const detail = err instanceof Error ? err.message : String(err);
        if (stream?.ended) {
          logger.info({ op, err: detail }, 'the streamed message ended; continuing with post + edit');
          return { ok: false };
        }
        logger.warn({ op, attempt: failures, max, err: detail }, 'stream call failed');
        if (failures >= max) {
          logger.error({ op, attempts: failures, err: detail }, 'giving up on native streaming for this reply; continuing with post + edit');
          return { ok: false };
        }
        await sleep(backoffMs(failures));
      }
    }
  }
}
