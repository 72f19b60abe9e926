/**
 * Slack-like rate limits for the fake: a sliding window per (method, scope key). Budgets are
 * Slack's published numbers; `timeScale` shrinks every window by the same factor so a test can
 * run 20x faster while the ratio "calls allowed per window" stays what Slack enforces.
 */
export interface MethodBudget {
  /** Calls allowed per window. */
  limit: number;
  /** Window length before scaling (60 s for "per minute" tiers). */
  windowMs: number;
  /** What the budget is shared by. */
  per: 'team' | 'channel';
}

/**
 * Slack's budgets: chat.update Tier 3 (50/min/workspace), chat.postMessage ~1/s per channel,
 * chat.startStream / stopStream Tier 2 (20/min), chat.appendStream Tier 4 (100/min).
 */
export const SLACK_BUDGETS: Record<string, MethodBudget> = {
  'chat.update': { limit: 50, windowMs: 60_000, per: 'team' },
  'chat.postMessage': { limit: 60, windowMs: 60_000, per: 'channel' },
  'chat.postEphemeral': { limit: 100, windowMs: 60_000, per: 'team' },
  'reactions.add': { limit: 50, windowMs: 60_000, per: 'team' },
  'reactions.remove': { limit: 50, windowMs: 60_000, per: 'team' },
  'users.info': { limit: 100, windowMs: 60_000, per: 'team' },
  'chat.delete': { limit: 50, windowMs: 60_000, per: 'team' },
  // Tier 3 for internal apps (the reduced limits apply to distributed non-Marketplace apps)
  'conversations.replies': { limit: 50, windowMs: 60_000, per: 'team' },
  'conversations.history': { limit: 50, windowMs: 60_000, per: 'team' },
  // streaming: start/stop Tier 2, append Tier 4
  'chat.startStream': { limit: 20, windowMs: 60_000, per: 'team' },
  'chat.stopStream': { limit: 20, windowMs: 60_000, per: 'team' },
  'chat.appendStream': { limit: 100, windowMs: 60_000, per: 'team' },
  // external uploads: Tier 4
  'files.getUploadURLExternal': { limit: 100, windowMs: 60_000, per: 'team' },
  'files.completeUploadExternal': { limit: 100, windowMs: 60_000, per: 'team' },
};

export class RateLimiter {
  private readonly hits = new Map<string, number[]>();
  constructor(
    private readonly budgets: Record<string, MethodBudget>,
    private readonly timeScale: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Returns 0 when the call may go ahead (and counts it), else the Retry-After in seconds. */
  check(method: string, team: string, channel: string | undefined): number {
    const b = this.budgets[method];
    if (!b) return 0;
    const windowMs = b.windowMs / this.timeScale;
    const key = `${method}:${team}:${b.per === 'channel' ? channel ?? '' : ''}`;
    const t = this.now();
    const list = (this.hits.get(key) ?? []).filter((x) => t - x < windowMs);
    if (list.length >= b.limit) {
      this.hits.set(key, list);
      return Math.max(1, Math.ceil((list[0]! + windowMs - t) / 1000));
    }
    list.push(t);
    this.hits.set(key, list);
    return 0;
  }
}
