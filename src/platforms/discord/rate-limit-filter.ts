/**
 * Which rate limits discord.js should throw (as RateLimitError) instead of waiting out.
 *
 * discord.js waits by itself when a bucket's X-RateLimit-Remaining reaches 0 (no 429 is ever sent),
 * and queues requests per bucket in order. That wait is what we want: the delivery layer keeps at
 * most one edit per message in flight, so the queue never holds stale edits. A real 429 on a live
 * message (post or edit), though, must reach the delivery layer as RateLimitedError so it backs off
 * and coalesces; discord.js's `rejectOnRateLimit` cannot tell the two apart, so the REST `response`
 * event marks the requests that came back 429.
 */
import type { RateLimitData } from 'discord.js';

const LIVE_ROUTES = new Set(['POST /channels/:id/messages', 'PATCH /channels/:id/messages/:id']);

export interface LiveLimitFilter {
  /** Hook for `rest.on('response')`. */
  onResponse(request: { method: string; path: string }, response: { status: number }): void;
  /** `rest.rejectOnRateLimit`. */
  shouldReject(data: RateLimitData): boolean;
}

export function createLiveLimitFilter(): LiveLimitFilter {
  const answered429 = new Map<string, number>();
  return {
    onResponse(request, response) {
      if (response.status !== 429) return;
      const key = `${request.method.toUpperCase()} ${request.path}`;
      answered429.set(key, (answered429.get(key) ?? 0) + 1);
    },
    shouldReject(data) {
      const method = data.method.toUpperCase();
      if (!LIVE_ROUTES.has(`${method} ${data.route}`)) return false;
      const url = data.url.split('?')[0]!;
      for (const [key, n] of answered429) {
        const path = key.slice(key.indexOf(' ') + 1);
        if (!key.startsWith(`${method} `) || !url.endsWith(path)) continue;
        if (n <= 1) answered429.delete(key);
        else answered429.set(key, n - 1);
        return true;
      }
      return false;
    },
  };
}
