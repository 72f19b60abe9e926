/**
 * Discord's attachment links are signed and expire (`ex`, hex Unix seconds; about 24 h): a turn
 * queued before a restart, or waiting long behind others, keeps a link the CDN no longer serves
 * (404 "This content is no longer available."). The downloader's fetch goes through here: a link
 * past its `ex`, or one the CDN refuses, is renewed with POST /attachments/refresh-urls
 * (`attachment_urls` in, `refreshed_urls: [{ original, refreshed }]` out) on the bot's REST
 * client, which paces it with the rest of its traffic, and fetched again once.
 */
import type { REST } from 'discord.js';
import type { Logger } from '../../log.js';

interface RefreshedUrls {
  refreshed_urls?: Array<{ original?: unknown; refreshed?: unknown }>;
}

/** A link Discord signed: it carries `ex`, `is` and `hm`. */
function signed(url: URL): boolean {
  return ['ex', 'is', 'hm'].every((p) => url.searchParams.has(p));
}

function expired(url: URL, now: number): boolean {
  const ex = parseInt(url.searchParams.get('ex') ?? '', 16);
  return Number.isFinite(ex) && ex * 1000 <= now;
}

export function refreshingFetch(opts: {
  rest: Pick<REST, 'post'>; logger: Logger; fetch?: typeof fetch; now?: () => number;
}): typeof fetch {
  const base = opts.fetch ?? globalThis.fetch;
  const now = opts.now ?? Date.now;

  async function refresh(url: URL): Promise<URL | undefined> {
    try {
      const out = await opts.rest.post('/attachments/refresh-urls', { body: { attachment_urls: [url.href] } }) as RefreshedUrls;
      const fresh = out.refreshed_urls?.find((r) => r.original === url.href)?.refreshed;
      if (typeof fresh === 'string') return new URL(fresh);
      opts.logger.warn({ path: url.pathname }, 'discord: the attachment link was not renewed (the file may be gone)');
    } catch (e) {
      opts.logger.warn({ path: url.pathname, err: (e as Error)?.message }, 'discord: renewing an attachment link failed');
    }
    return undefined;
  }

  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!signed(url)) return base(input, init);
    // Known to be past its expiry: renew before asking the CDN (once; a failed renewal is not retried).
    if (expired(url, now())) return base((await refresh(url)) ?? url, init);
    const res = await base(url, init);
    if (res.status !== 404 && res.status !== 403) return res;
    // The CDN refused a link that looked current (the clocks differ, or Discord ended it early).
    const fresh = await refresh(url);
    if (!fresh) return res;
    await res.body?.cancel().catch(() => {});
    return base(fresh, init);
  };
}
