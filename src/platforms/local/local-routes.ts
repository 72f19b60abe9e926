import type { Conversation } from '../../chat.js';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { BridgeInbound } from '../../bridge/index.js';
import { CARD_ACTIONS, PROMPT_ACTIONS, type CardAction, type CardChoice, type FormKind, type PromptAction } from '../../bridge/types.js';
import { bearerToken, readJsonBody, sameSecret, sendJson, sendText, type RouteHandler } from '../../http/index.js';
import type { LocalConfig } from './local-config.js';
import type { LocalFiles } from './local-files.js';
import type { LocalHub } from './local-hub.js';

/** A page (= conversation) id as the browser makes it: sessionStorage, one per tab. */
const PAGE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_TEXT = 40_000;

const STATIC: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/local/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/local/markdown.js': { file: 'markdown.js', type: 'text/javascript; charset=utf-8' },
  '/local/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/local/prompt.js': { file: 'prompt.js', type: 'text/javascript; charset=utf-8' },
  '/local/card.js': { file: 'card.js', type: 'text/javascript; charset=utf-8' },
  '/local/dom.js': { file: 'dom.js', type: 'text/javascript; charset=utf-8' },
};

export interface LocalRoutesOptions {
  hub: LocalHub;
  /** Files posted to the page (served at /local/files/<id>/<name>). */
  files?: LocalFiles;
  config: LocalConfig;
  logger: Logger;
  /** The bridge once the platform started; undefined before start and after stop. */
  bridge: () => BridgeInbound | undefined;
  /**
   * Required from every request when set (the page is off loopback): the `tb_local` cookie, an
   * `Authorization: Bearer` header, or `?token=` on the page URL (which sets the cookie).
   */
  token?: string;
  now?: () => number;
}

const COOKIE = 'tb_local';

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

/** A card click's question and options: small non-negative integers (the broker checks them against the card). */
function readChoice(raw: unknown): CardChoice | string | undefined {
  if (raw === undefined) return undefined;
  const c = raw as { question?: unknown; options?: unknown };
  const small = (n: unknown) => Number.isInteger(n) && (n as number) >= 0 && (n as number) < 100;
  if (!raw || typeof raw !== 'object' || !small(c.question)) return 'choice.question must be a whole number from 0 to 99';
  if (c.options === undefined) return { question: c.question as number };
  if (!Array.isArray(c.options) || c.options.length > 20 || !c.options.every(small)) return 'choice.options must be a list of at most 20 whole numbers from 0 to 99';
  return { question: c.question as number, options: c.options as number[] };
}

export function conversationOf(page: string): Conversation {
  return { space: 'local', channel: page, thread: '' };
}

/** The local page's HTTP routes: static files, the SSE stream, and the POST endpoints (send, action, form). */
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
    const b = (body ?? {}) as { page?: unknown; action?: unknown; id?: unknown; choice?: unknown };
    if (typeof b.page !== 'string' || !PAGE_ID.test(b.page)) return sendJson(res, 400, { error: 'page must match [A-Za-z0-9_-]{1,64}' });
    const action = b.action as PromptAction | CardAction | 'stop';
    const actions: readonly string[] = [...PROMPT_ACTIONS, ...CARD_ACTIONS, 'stop'];
    if (!actions.includes(action)) return sendJson(res, 400, { error: `action must be one of ${actions.join(', ')}` });
    if (typeof b.id !== 'string' || b.id === '' || b.id.length > 200) return sendJson(res, 400, { error: 'id must be a non-empty string' });
    const choice = readChoice(b.choice);
    if (typeof choice === 'string') return sendJson(res, 400, { error: choice });
    const page = b.page;
    await bridge.handleAction({
      platform: 'local',
      action,
      id: b.id,
      ...(choice ? { choice } : {}),
      user,
      notifyPrivately: async (text) => hub.toast(page, text),
      openForm: async (form) => hub.form(page, form),
    });
    sendJson(res, 200, { ok: true });
  }

  /** The token check (the server's Host check already ran). True when the request may go on. */
  function authorized(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    const token = opts.token;
    if (!token) return true;
    const bearer = bearerToken(req.headers.authorization);
    const cookie = cookieValue(req.headers.cookie, COOKIE);
    if ((bearer && sameSecret(bearer, token)) || (cookie && sameSecret(cookie, token))) return true;
    const query = url.searchParams.get('token');
    if (url.pathname === '/' && req.method === 'GET' && query && sameSecret(query, token)) {
      // Trade the URL token for a cookie the page's own requests (and its event stream) carry.
      res.setHeader('set-cookie', `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`);
      res.setHeader('location', '/');
      res.writeHead(303).end();
      return false;
    }
    sendJson(res, 401, { error: 'this page needs its token: open the URL with ?token= printed at start-up (TURNBRIDGE_LOCAL_TOKEN sets it)' });
    return false;
  }

  /** A submitted reason / edited input: 200 when taken, 422 with the reason it was not (the dialog stays open). */
  async function form(req: IncomingMessage, res: ServerResponse, bridge: BridgeInbound): Promise<void> {
    const body = await readJsonBody(req);
    const b = (body ?? {}) as { page?: unknown; kind?: unknown; id?: unknown; value?: unknown; question?: unknown };
    if (typeof b.page !== 'string' || !PAGE_ID.test(b.page)) return sendJson(res, 400, { error: 'page must match [A-Za-z0-9_-]{1,64}' });
    const kinds: readonly FormKind[] = ['reason', 'edit', 'other', 'feedback'];
    if (!kinds.includes(b.kind as FormKind)) return sendJson(res, 400, { error: `kind must be one of ${kinds.join(', ')}` });
    const kind = b.kind as FormKind;
    const question = b.question === undefined ? undefined : readChoice({ question: b.question });
    if (typeof question === 'string') return sendJson(res, 400, { error: 'question must be a whole number from 0 to 99' });
    if (typeof b.id !== 'string' || b.id === '' || b.id.length > 200) return sendJson(res, 400, { error: 'id must be a non-empty string' });
    if (typeof b.value !== 'string' || b.value.length > MAX_TEXT) return sendJson(res, 400, { error: `value must be a string of at most ${MAX_TEXT} characters` });
    if (!bridge.handleFormSubmit) return sendJson(res, 501, { error: 'this bridge takes no forms' });
    const page = b.page;
    const answer = await bridge.handleFormSubmit({
      platform: 'local', kind, id: b.id, ...(question ? { question: question.question } : {}), value: b.value, user, notifyPrivately: async (text) => hub.toast(page, text),
    });
    if (answer.ok) sendJson(res, 200, { ok: true });
    else sendJson(res, 422, { error: answer.error });
  }

  return async (req, res, { url }) => {
    const path = url.pathname;
    if (!authorized(req, res, url)) return;
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (Object.hasOwn(STATIC, path)) return serveStatic(res, path);
      if (path === '/local/events') {
        const page = url.searchParams.get('page') ?? '';
        if (!PAGE_ID.test(page)) return sendJson(res, 400, { error: 'page must match [A-Za-z0-9_-]{1,64}' });
        return hub.attach(page, res);
      }
      if (path.startsWith('/local/files/') && opts.files) return opts.files.serve(res, path);
      return sendJson(res, 404, { error: 'not found', path });
    }
    if (req.method === 'POST' && (path === '/local/send' || path === '/local/action' || path === '/local/form')) {
      if (!sameOrigin(req)) return sendJson(res, 403, { error: 'cross-origin or non-JSON request refused' });
      const bridge = opts.bridge();
      if (!bridge) return sendJson(res, 503, { error: 'the local platform is not running' });
      if (path === '/local/send') return send(req, res, bridge);
      return path === '/local/action' ? action(req, res, bridge) : form(req, res, bridge);
    }
    return sendJson(res, 404, { error: 'not found', path });
  };
}
