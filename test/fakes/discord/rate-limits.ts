/**
 * Fixed-window buckets per (route, channel), as Discord reports them in X-RateLimit-* headers.
 * A request past the limit gets a 429 with Retry-After (discord.js ignores the JSON retry_after).
 */
export interface BucketLimit { limit: number; windowMs: number }

interface Window { start: number; used: number }

export interface RateVerdict {
  headers: Record<string, string>;
  /** Set when the request must be answered 429. */
  retryAfterMs?: number;
}

export class RateLimits {
  private readonly windows = new Map<string, Window>();
  private readonly forced = new Map<string, { times: number; retryAfterS: number }>();
  /** Every 429 this fake answered, by bucket. */
  readonly rejected: { bucket: string; at: number }[] = [];

  constructor(private readonly limits: Record<string, BucketLimit>, private readonly now: () => number = Date.now) {}

  /** Make the next `times` requests of a route kind (e.g. 'PATCH /channels/:id/messages/:id') answer 429. */
  force429(routeKey: string, times: number, retryAfterS = 1): void {
    this.forced.set(routeKey, { times, retryAfterS });
  }

  check(routeKey: string, major: string): RateVerdict | undefined {
    const forced = this.forced.get(routeKey);
    if (forced && forced.times > 0) {
      forced.times--;
      this.rejected.push({ bucket: `${routeKey}@${major}`, at: this.now() });
      return { headers: { 'retry-after': String(forced.retryAfterS), 'x-ratelimit-scope': 'user' }, retryAfterMs: forced.retryAfterS * 1000 };
    }
    const limit = this.limits[routeKey];
    if (!limit) return undefined;
    const key = `${routeKey}@${major}`;
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t >= w.start + limit.windowMs) {
      w = { start: t, used: 0 };
      this.windows.set(key, w);
    }
    const resetAfterMs = w.start + limit.windowMs - t;
    const headers = (remaining: number): Record<string, string> => ({
      'x-ratelimit-limit': String(limit.limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': ((w!.start + limit.windowMs) / 1000).toFixed(3),
      'x-ratelimit-reset-after': (Math.ceil(resetAfterMs) / 1000).toFixed(3),
      'x-ratelimit-bucket': Buffer.from(routeKey).toString('hex').slice(0, 32),
      'x-ratelimit-scope': 'user',
    });
    if (w.used >= limit.limit) {
      this.rejected.push({ bucket: key, at: t });
      return { headers: { ...headers(0), 'retry-after': String(Math.max(1, Math.ceil(resetAfterMs / 1000))) }, retryAfterMs: resetAfterMs };
    }
    w.used++;
    return { headers: headers(limit.limit - w.used) };
  }
}
