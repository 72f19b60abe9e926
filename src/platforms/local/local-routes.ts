import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { BridgeInbound } from '../../bridge/index.js';
import type { Conversation } from '../../delivery/index.js';
import { readJsonBody, sendJson, sendText, type RouteHandler } from '../../http/index.js';
import type { LocalConfig } from './local-config.js';
import type { LocalHub } from './local-hub.js';

/** A page (= conversation) id as the browser makes it: sessionStorage, one per tab. */
const PAGE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_TEXT = 40_000;

const STATIC: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/local/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/local/markdown.js': { file: 'markdown.js', type: 'text/javascript; charset=utf-8' },
  '/local/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

export interface LocalRoutesOptions {
  hub: LocalHub;
  config: LocalConfig;
  logger: Logger;
  /** The bridge once the platform started; undefined before start and after stop. */
  bridge: () => BridgeInbound | undefined;
  /** The address the HTTP server binds (config.host): on loopback, only loopback Host headers are served. */
  bindHost: string;
  now?: () => number;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The hostname of a Host header ("127.0.0.1:3000" -> "127.0.0.1", "[::1]:3000" -> "[::1]"). */
function hostnameOf(header: string | undefined): string {
  if (!header) return '';
  const m = /^(\[[^\]]*\]|[^:]*)/.exec(header.trim().toLowerCase());
  return m ? m[1]! : '';
}

export function conversationOf(page: string): Conversation {
  return { space: 'local', channel: page, thread: '' };
}

/** The local page's HTTP routes: static files, the SSE stream, and the two POST endpoints. */
export function createLocalRoutes(opts: LocalRoutesOptions): RouteHandler {
  const { hub, config, logger } = opts;
  const now = opts.now ?? Date.now;
  const user = { id: config.userId, name: config.userName };
  const cache = new Map<string, string>();

  async function serveStatic(res: ServerResponse, path: string): Promise<void> {
    const entry = STATIC[path]!;
    let body = cache.get(entry.file);
    if (body === undefined) {
      body = await readFile(new URL(`./page/${entry.file}`, import.meta.url), 'utf8');
      cache.set(entry.file, body);
    }
    res.setHeader('content-security-policy', "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'");
    res.setHeader('referrer-policy', 'no-referrer');
    sendText(res, 200, body, entry.type);
  }

  /** Refuse cross-site posts: a JSON content type (forces a CORS preflight we never answer) and a same-origin Origin. */
  function sameOrigin(req: IncomingMessage): boolean {
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('application/json')) return false;
    const origin = req.headers.origin;
    return origin === undefined || origin === `http://${req.headers.host}`;
  }

  async function send(req: IncomingMessage, res: ServerResponse, bridge: BridgeInbound): Promise<void> {
    const body = await readJsonBody(req);
    const b = (body ?? {}) as { page?: unknown; text?: unknown; id?: unknown };
    if (typeof b.page !== 'string' || !PAGE_ID.test(b.page)) return sendJson(res, 400, { error: 'page must match [A-Za-z0-9_-]{1,64}' });
    if (typeof b.text !== 'string' || b.text.trim() === '') return sendJson(res, 400, { error: 'text must be a non-empty string' });
    if (b.text.length > MAX_TEXT) return sendJson(res, 413, { error: `text longer than ${MAX_TEXT} characters` });
    const clientId = typeof b.id === 'string' && PAGE_ID.test(b.id) ? b.id : randomUUID();
    const conversation = conversationOf(b.page);
    const id = `u-${clientId}`;
    if (!hub.get(b.page, id)) hub.upsert(b.page, { kind: 'user', id, text: b.text, at: now() });
    logger.debug({ page: b.page, text: b.text }, 'local message');
    await bridge.handleMessage({
      platform: 'local',
      conversation,
      user,
      text: b.text.trim(),
      attachments: [],
      eventId: `local:${b.page}:${clientId}`,
      receivedAt: now(),
      source: { id, conversation },
    });
    sendJson(res, 202, { accepted: true, id });
  }

  async function action(req: IncomingMessage, res: ServerResponse, bridge: BridgeInbound): Promise<void> {
    const body = await readJsonBody(req);
    const b = (body ?? {}) as { page?: unknown; action?: unknown; id?: unknown };
    if (typeof b.page !== 'string' || !PAGE_ID.test(b.page)) return sendJson(res, 400, { error: 'page must match [A-Za-z0-9_-]{1,64}' });
    if (b.action !== 'allow' && b.action !== 'deny' && b.action !== 'stop') return sendJson(res, 400, { error: 'action must be allow, deny or stop' });
    if (typeof b.id !== 'string' || b.id === '' || b.id.length > 200) return sendJson(res, 400, { error: 'id must be a non-empty string' });
    const page = b.page;
    await bridge.handleAction({
      platform: 'local',
      action: b.action,
      id: b.id,
      user,
      notifyPrivately: async (text) => hub.toast(page, text),
    });
    sendJson(res, 200, { ok: true });
  }

  const loopbackOnly = isLoopback(opts.bindHost);

  return async (req, res, { url }) => {
    const path = url.pathname;
    // DNS rebinding: a page on another site whose name now points at 127.0.0.1 sends its own Host.
    if (loopbackOnly && !isLoopback(hostnameOf(req.headers.host))) {
      return sendJson(res, 421, { error: 'this page is served to loopback host names only (localhost, 127.0.0.1)' });
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (Object.hasOwn(STATIC, path)) return serveStatic(res, path);
      if (path === '/local/events') {
        const page = url.searchParams.get('page') ?? '';
        if (!PAGE_ID.test(page)) return sendJson(res, 400, { error: 'page must match [A-Za-z0-9_-]{1,64}' });
        return hub.attach(page, res);
      }
      return sendJson(res, 404, { error: 'not found', path });
    }
    if (req.method === 'POST' && (path === '/local/send' || path === '/local/action')) {
      if (!sameOrigin(req)) return sendJson(res, 403, { error: 'cross-origin or non-JSON request refused' });
      const bridge = opts.bridge();
      if (!bridge) return sendJson(res, 503, { error: 'the local platform is not running' });
      return path === '/local/send' ? send(req, res, bridge) : action(req, res, bridge);
    }
    return sendJson(res, 404, { error: 'not found', path });
  };
}
