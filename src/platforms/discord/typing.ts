/**
 * Discord shows "Bot is typing…" for about 10 s per request. While an agent works before its first
 * text, re-send it every `intervalMs` per channel, until text shows or `maxMs` passes.
 */
import type { Logger } from '../../log.js';

export interface TypingLoopOptions {
  intervalMs: number;
  /** Give up after this long even if no text ever shows (default 10 min). */
  maxMs?: number;
  send(channelId: string): Promise<void>;
  logger: Logger;
}

export class TypingLoop {
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; until: number }>();

  constructor(private readonly opts: TypingLoopOptions) {}

  start(channelId: string): void {
    if (this.timers.has(channelId)) return;
    const until = Date.now() + (this.opts.maxMs ?? 10 * 60_000);
    const tick = (): void => {
      this.opts.send(channelId).catch((e: unknown) => {
        this.opts.logger.debug({ channelId, err: (e as Error)?.message }, 'discord: typing indicator failed');
      });
    };
    tick();
    const timer = setInterval(() => {
      if (Date.now() > until) this.stop(channelId);
      else tick();
    }, this.opts.intervalMs);
    timer.unref?.();
    this.timers.set(channelId, { timer, until });
  }

  stop(channelId: string): void {
    const entry = this.timers.get(channelId);
    if (!entry) return;
    clearInterval(entry.timer);
    this.timers.delete(channelId);
  }

  stopAll(): void {
    for (const id of [...this.timers.keys()]) this.stop(id);
  }

  active(channelId: string): boolean {
    return this.timers.has(channelId);
  }
}
