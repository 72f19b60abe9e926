/**
 * The fake REST API under /api/v10 (+ CDN under /attachments). Validates what Discord validates
 * (2,000-character content, custom_id 1-100, 5x5 buttons, 3 s interaction ack, one ack only;
 * uploads: multipart `payload_json` + `files[n]`, 10 files a message, 25 MiB a request, the
 * per-file limit of the server's boost level), applies rate limits, and records every call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeDiscord } from './fake-discord.js';
import { channelPayload, messagePayload, type FakeComponentRow } from './payloads.js';

export interface RecordedCall {
  at: number;
  method: string;
  /** Path without /api/v10 and query, ids as sent. */
  path: string;
  /** Route with ids replaced by :id, e.g. 'PATCH /channels/:id/messages/:id'. */
  route: string;
  status: number;
  body?: any;
  /** The files of a multipart request. */
  files?: Array<{ filename: string; size: number; contentType: string }>;
  auth: boolean;
}

export class HttpError extends Error {
  constructor(readonly status: number, readonly code: number, message: string, readonly errors?: unknown) {
    super(message);
  }
}

/** A file part of a multipart request (`files[n]`). */
export interface UploadedPart {
  /** The form field name, `files[n]`. */
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

/** "The maximum request size when sending a message is 25 MiB" (resources/message.mdx, Create Message). */
export const MAX_REQUEST_BYTES = 25 * 1024 * 1024;
/** Files per message (the `attachments` array holds at most 10). */
export const MAX_FILES = 10;

/** JSON, or multipart/form-data with `payload_json` and `files[n]` parts (reference.mdx, Uploading Files). */
async function readBody(req: IncomingMessage): Promise<{ json: any; files: UploadedPart[]; bytes: number }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  if (raw.length === 0) return { json: undefined, files: [], bytes: 0 };
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('multipart/form-data')) return { json: JSON.parse(raw.toString('utf8')), files: [], bytes: raw.length };
  const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
  let json: any = {};
  const files: UploadedPart[] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') {
      if (field === 'payload_json') json = JSON.parse(value);
      continue;
    }
    if (!/^files\[\d+\]$/.test(field)) throw new HttpError(400, 50035, `Invalid Form Body (${field})`);
    files.push({ field, filename: value.name, contentType: value.type || 'application/octet-stream', data: Buffer.from(await value.arrayBuffer()) });
  }
  return { json, files, bytes: raw.length };
}

/** What an upload may carry here: the request and per-file limits (413 / 40005 over them), 10 files. */
function validateFiles(fake: FakeDiscord, channelId: string, body: any, files: UploadedPart[], bytes: number): void {
  if (files.length === 0) return;
  if (bytes > MAX_REQUEST_BYTES) throw new HttpError(413, 40005, 'Request entity too large');
  const limit = fake.uploadLimit(channelId);
  if (files.some((f) => f.data.length > limit)) throw new HttpError(413, 40005, 'Request entity too large');
  if (files.length > MAX_FILES) throw new HttpError(400, 50035, 'Invalid Form Body', { files: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_FILES} or fewer in length.` }] } });
  // Each attachments[] entry names a files[n] part by its n ("for new attachments this must match the n in files[n]").
  const parts = new Set(files.map((f) => f.field.slice(6, -1)));
  for (const a of (body?.attachments ?? []) as Array<{ id?: unknown }>) {
    if (!parts.has(String(a.id))) throw new HttpError(400, 50035, 'Invalid Form Body (attachments: unknown id)');
  }
}

function validateContent(body: any): void {
  if (typeof body?.content === 'string' && body.content.length > 2000) {
    throw new HttpError(400, 50035, 'Invalid Form Body', { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } });
  }
  const rows = body?.components as FakeComponentRow[] | undefined;
  if (!rows) return;
  if (rows.length > 5 || rows.some((r) => r.components.length > 5)) throw new HttpError(400, 50035, 'Invalid Form Body (components)');
  const ids = new Set<string>();
  for (const r of rows) for (const c of r.components) {
    if (c.custom_id !== undefined && (c.custom_id.length < 1 || c.custom_id.length > 100)) throw new HttpError(400, 50035, 'Invalid Form Body (custom_id)');
    // custom_ids are unique in a message (Component reference)
    if (c.custom_id !== undefined && ids.has(c.custom_id)) throw new HttpError(400, 50035, 'Invalid Form Body (duplicate custom_id)');
    if (c.custom_id !== undefined) ids.add(c.custom_id);
    if (c.type === 2 && (c.label ?? '').length > 80) throw new HttpError(400, 50035, 'Invalid Form Body (button label)');
    if (c.type === 3) {
      // a select menu fills its row; 1-25 options of label, value and description <= 100; placeholder <= 150
      const n = c.options?.length ?? 0;
      if (r.components.length !== 1 || n < 1 || n > 25) throw new HttpError(400, 50035, 'Invalid Form Body (select menu)');
      if ((c.options ?? []).some((o) => !o.label || o.label.length > 100 || !o.value || o.value.length > 100 || (o.description ?? '').length > 100)) throw new HttpError(400, 50035, 'Invalid Form Body (select option)');
      if ((c.placeholder ?? '').length > 150) throw new HttpError(400, 50035, 'Invalid Form Body (placeholder)');
      const min = c.min_values ?? 1;
      const max = c.max_values ?? 1;
      if (min < 0 || max < 1 || min > max || max > n) throw new HttpError(400, 50035, 'Invalid Form Body (min_values / max_values)');
    }
  }
}

const ID = /\d{17,20}|%40original|@original|@me/g;

/**
 * The bucket a route counts against. Every reaction route of a channel (add, remove, clear: any
 * method, any emoji) shares one bucket (discord/discord-api-docs#981; discord.js#3439 shares them
 * too); every other route is its own (method + path).
 */
export const REACTIONS_BUCKET = 'REACTIONS /channels/:id/messages/:id/reactions';
function bucketOf(route: string): string {
  return /\/messages\/:id\/reactions/.test(route) ? REACTIONS_BUCKET : route;
}

export async function handleRest(fake: FakeDiscord, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  const method = req.method ?? 'GET';
  const path = url.pathname.replace(/^\/api\/v10/, '');
  const route = `${method} ${path.replace(/\/interactions\/(\d+)\/[^/]+/, '/interactions/:id/:token').replace(/\/webhooks\/(\d+)\/[^/]+/, '/webhooks/:id/:token').replace(/\/reactions\/[^/]+/, '/reactions/:emoji').replace(ID, ':id')}`;
  const auth = typeof req.headers.authorization === 'string';
  const call: RecordedCall = { at: Date.now(), method, path, route, status: 0, auth };
  const send = (status: number, json?: unknown, headers: Record<string, string> = {}): void => {
    call.status = status;
    fake.record(call);
    res.writeHead(status, { ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...headers });
    res.end(json === undefined ? undefined : JSON.stringify(json));
  };
  try {
    if (url.pathname.startsWith('/attachments/')) {
      // Discord's CDN answers an expired or unsigned link 404 "This content is no longer available.".
      const file = fake.servedFile(url);
      if (!file) {
        call.status = 404;
        fake.record(call);
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('This content is no longer available.');
        return;
      }
      call.status = 200;
      fake.record(call);
      res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.data.length) });
      res.end(file.data);
      return;
    }
    const read = await readBody(req);
    call.body = read.json;
    if (read.files.length) call.files = read.files.map((f) => ({ filename: f.filename, size: f.data.length, contentType: f.contentType }));
    const isTokenRoute = path.startsWith('/interactions/') || path.startsWith('/webhooks/');
    if (!isTokenRoute && req.headers.authorization !== `Bot ${fake.token}`) {
      return send(401, { message: '401: Unauthorized', code: 0 });
    }
    const major = /^\/(?:channels|webhooks)\/(\d+)/.exec(path)?.[1] ?? 'global';
    const verdict = fake.rateLimits.check(bucketOf(route), major);
    if (verdict?.retryAfterMs !== undefined) {
      return send(429, { message: 'You are being rate limited.', retry_after: verdict.retryAfterMs / 1000, global: false }, verdict.headers);
    }
    const late = fake.lateBy(route);
    if (late > 0) await new Promise((r) => setTimeout(r, late));
    const out = await route_(fake, method, path, call.body, url, read);
    send(out.status, out.json, verdict?.headers);
  } catch (e) {
    if (e instanceof HttpError) send(e.status, { message: e.message, code: e.code, ...(e.errors ? { errors: e.errors } : {}) });
    else send(500, { message: String((e as Error)?.message ?? e), code: 0 });
  }
}

async function route_(fake: FakeDiscord, method: string, path: string, body: any, url: URL, read: { files: UploadedPart[]; bytes: number }): Promise<{ status: number; json?: unknown }> {
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/gateway/bot') {
    return { status: 200, json: { url: `${fake.wsUrl}/gateway`, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } } };
  }
  if (method === 'POST' && path === '/attachments/refresh-urls') return { status: 200, json: fake.refreshLinks(body?.attachment_urls) };
  if (method === 'GET' && path === '/users/@me') return { status: 200, json: fake.world.bot };
  if (method === 'GET' && path === '/applications/@me') {
    return { status: 200, json: { id: fake.world.bot.id, name: 'turnbridge (fake)', flags: fake.applicationFlags, bot_public: true, bot_require_code_grant: false, bot: fake.world.bot } };
  }
  if (method === 'GET' && path === '/users/@me/guilds') {
    const g = fake.world.guild;
    return { status: 200, json: [{ id: g.id, name: g.name, icon: null, owner: false, permissions: fake.guildPermissions, features: [] }] };
  }
  if (method === 'POST' && path === '/users/@me/channels') {
    return { status: 200, json: channelPayload(fake.openDm(body?.recipient_id)) };
  }
  if ((m = /^\/channels\/(\d+)$/.exec(path)) && method === 'GET') {
    return { status: 200, json: channelPayload(fake.channel(m[1]!)) };
  }
  if ((m = /^\/channels\/(\d+)\/typing$/.exec(path)) && method === 'POST') {
    fake.channel(m[1]!);
    return { status: 204 };
  }
  if ((m = /^\/channels\/(\d+)\/messages$/.exec(path)) && method === 'GET') {
    // Get Channel Messages: newest first, `limit` 1-100 (default 50), `before` / `after` a message id.
    const ch = fake.channel(m[1]!);
    const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 50)));
    const before = url.searchParams.get('before');
    const after = url.searchParams.get('after');
    const all = [...fake.messages.values()].filter((x) => x.channel_id === ch.id)
      .filter((x) => (!before || BigInt(x.id) < BigInt(before)) && (!after || BigInt(x.id) > BigInt(after)))
      .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    return { status: 200, json: all.slice(0, limit).map(messagePayload) };
  }
  if ((m = /^\/channels\/(\d+)\/messages$/.exec(path)) && method === 'POST') {
    validateContent(body);
    fake.checkPermission(m[1]!, 'send');
    validateFiles(fake, m[1]!, body, read.files, read.bytes);
    if (read.files.length) fake.checkPermission(m[1]!, 'attach');
    const msg = fake.createBotMessage(m[1]!, body, read.files);
    return { status: 200, json: messagePayload(msg) };
  }
  if ((m = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path)) && method === 'PATCH') {
    validateContent(body);
    const msg = fake.editMessage(m[1]!, m[2]!, body);
    return { status: 200, json: messagePayload(msg) };
  }
  if ((m = /^\/channels\/(\d+)\/messages\/(\d+)\/threads$/.exec(path)) && method === 'POST') {
    fake.checkPermission(m[1]!, 'thread');
    const thread = fake.startThread(m[1]!, m[2]!, body);
    return { status: 201, json: channelPayload(thread) };
  }
  if ((m = /^\/channels\/(\d+)\/messages\/(\d+)\/reactions\/([^/]+)\/@me$/.exec(path)) && (method === 'PUT' || method === 'DELETE')) {
    // adding a reaction needs Add Reactions (removing the bot's own does not)
    if (method === 'PUT') fake.checkPermission(m[1]!, 'react');
    fake.react(m[2]!, decodeURIComponent(m[3]!), method === 'PUT');
    return { status: 204 };
  }
  if ((m = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path)) && method === 'POST') {
    fake.interactionCallback(m[1]!, m[2]!, body);
    return url.searchParams.get('with_response') === 'true' ? { status: 200, json: { interaction: { id: m[1] } } } : { status: 204 };
  }
  if ((m = /^\/webhooks\/(\d+)\/([^/]+)\/messages\/(?:%40|@)original$/.exec(path)) && method === 'PATCH') {
    validateContent(body);
    return { status: 200, json: messagePayload(fake.editOriginal(m[2]!, body)) };
  }
  if ((m = /^\/webhooks\/(\d+)\/([^/]+)$/.exec(path)) && method === 'POST') {
    validateContent(body);
    return { status: 200, json: messagePayload(fake.followUp(m[2]!, body)) };
  }
  throw new HttpError(404, 0, `404: Not Found (${method} ${path})`);
}
