/**
 * A loopback fake of Slack for tests (node:http + ws on 127.0.0.1, port 0): Web API over
 * form-encoded POSTs, Socket Mode, file downloads with auth (302 to an HTML sign-in page
 * without it), response_url, per-method rate limits answering 429 + Retry-After, fault
 * injection, "down" mode, agent sessions with Slack's own Stop (agent-sessions.ts), and a
 * record of every call.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RateLimiter, SLACK_BUDGETS, type MethodBudget } from './rate-limits.js';
import { signSlackRequest } from './signing.js';
import { SocketModeHub, type Envelope } from './socket-mode.js';
import { clickNativeStop, sessionOf, type FakeSession, type SuggestedPromptsCall } from './agent-sessions.js';
import { handleMethod, type ApiAnswer, type Ephemeral, type FakeMessage, type WebApiState } from './web-api.js';
import { FakeUploads } from './files-api.js';

export interface FakeSlackOptions {
  botToken?: string;
  appToken?: string;
  /** Every rate window is divided by this (1 = Slack's real windows). */
  timeScale?: number;
  /** Per-method budgets (default Slack's); false = no rate limits. */
  budgets?: Record<string, MethodBudget> | false;
  /** id -> display name, for users.info. */
  users?: Record<string, string>;
  /** Slack user groups: subteam id -> member user ids. */
  usergroups?: Record<string, string[]>;
  /** Bind to this port (default 0 = any free port). */
  port?: number;
  /** The bot token's scopes, sent as x-oauth-scopes on bot-token calls (default: those in slack-app-manifest.yaml). */
  scopes?: string[];
  /** Channels that exist, and whether the bot is a member (conversations.history answers not_in_channel otherwise). */
  channels?: Record<string, { member: boolean }>;
  /**
   * Declared as an agent in the app settings (Agents on): agent sessions work, and the token
   * gets assistant:write ("Declaring an app as an agent adds the assistant:write scope to it").
   * Default false: the app as it was before.
   */
  agent?: boolean;
  /** The bot events the app subscribes to (default: those of slack-app-manifest.yaml). */
  events?: string[];
  /** An agent session in processing turns active after this long (default Slack's hour, divided by timeScale). */
  sessionTimeoutMs?: number;
  /** The clock of the agent sessions' timeout (default Date.now). */
  now?: () => number;
}

/** The bot scopes of slack-app-manifest.yaml (assistant:write comes with declaring the app an agent). */
export const MANIFEST_SCOPES = ['app_mentions:read', 'chat:write', 'channels:history', 'groups:history', 'im:history', 'files:read', 'files:write', 'reactions:write', 'usergroups:read', 'users:read', 'assistant:write'];

/** The bot events of slack-app-manifest.yaml. */
export const MANIFEST_EVENTS = ['app_mention', 'message.channels', 'message.groups', 'message.im', 'agent_session_stopped', 'app_home_opened'];

export interface CallRecord {
  method: string;
  params: Record<string, any>;
  /** 'bot' | 'app' | 'none' | 'other' (never the token itself). */
  auth: string;
  status: number;
  ok: boolean;
  error?: string;
  at: number;
}

export interface Fault {
  status?: number;
  error?: string;
  retryAfter?: string;
  times: number;
}

export interface FakeFile {
  id: string;
  name: string;
  mimetype: string;
  size: number;
  url_private: string;
  url_private_download: string;
  mode: string;
}

export const TEAM = 'T0FAKE';
export const BOT_USER = 'U0BOT';
export const BOT_ID = 'B0BOT';
export const APP_ID = 'A0FAKE';

const JSON_FIELDS = ['blocks', 'attachments', 'chunks', 'loading_messages', 'metadata', 'files', 'prompts'];

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export class FakeSlack extends EventEmitter {
  readonly calls: CallRecord[] = [];
  readonly state: WebApiState;
  private server!: Server;
  private hub!: SocketModeHub;
  private limiter: RateLimiter;
  private readonly faults = new Map<string, Fault>();
  private readonly slowCalls = new Map<string, { ms: number; times: number }>();
  private readonly files = new Map<string, { file: FakeFile; bytes: Buffer }>();
  private down = false;
  private tsCounter = 0;
  private eventCounter = 0;
  port = 0;

  constructor(private readonly opts: FakeSlackOptions = {}) {
    super();
    this.setMaxListeners(100);
    this.limiter = new RateLimiter(opts.budgets === false ? {} : opts.budgets ?? SLACK_BUDGETS, opts.timeScale ?? 1);
    this.state = {
      team: TEAM, botUserId: BOT_USER, botId: BOT_ID,
      botToken: opts.botToken ?? 'xoxb-fake-bot-token', appToken: opts.appToken ?? 'xapp-fake-app-token',
      messages: new Map(), ephemerals: [], statuses: [], deleted: [],
      triggers: new Map(), views: [], usergroups: new Map(Object.entries(opts.usergroups ?? {})),
      users: new Map(Object.entries(opts.users ?? {}).map(([id, name]) => [id, { name }])),
      channels: new Map(Object.entries(opts.channels ?? {})),
      agent: opts.agent ?? false,
      events: new Set(opts.events ?? MANIFEST_EVENTS),
      scopes: this.scopes,
      sessions: new Map(), suggestedPrompts: [],
      sessionTimeoutMs: opts.sessionTimeoutMs ?? 3_600_000 / (opts.timeScale ?? 1),
      now: opts.now ?? (() => Date.now()),
      nextTs: () => this.nextTs(),
      connectionsUrl: () => this.hub.issueUrl(`ws://127.0.0.1:${this.port}`),
      uploads: undefined as unknown as FakeUploads,
    };
    this.state.uploads = new FakeUploads(this.state, () => this.baseUrl, (id, name, mimetype, bytes) => this.addFile(name, mimetype, bytes, id));
  }

  static async start(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
    const f = new FakeSlack(opts);
    await f.listen(opts.port ?? 0);
    return f;
  }

  private async listen(port: number): Promise<void> {
    this.server = createServer((req, res) => { void this.route(req, res); });
    this.hub = new SocketModeHub(this.server, APP_ID, () => this.emit('change'));
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  get baseUrl(): string { return `http://127.0.0.1:${this.port}`; }
  get apiUrl(): string { return `${this.baseUrl}/api/`; }
  get botToken(): string { return this.state.botToken; }
  get appToken(): string { return this.state.appToken; }
  get socket(): SocketModeHub { return this.hub; }

  /** The bot token's scopes: as given, else the manifest's (without assistant:write unless the app is an agent). */
  get scopes(): string[] {
    return this.opts.scopes ?? MANIFEST_SCOPES.filter((s) => s !== 'assistant:write' || this.opts.agent);
  }

  /**
   * HTTP mode: set to the app's Request URL and signing secret, and events and interactive
   * payloads are POSTed there, signed, as Slack does (JSON for events, `payload=` form for
   * interactivity); the response body is the ack payload. Unset: Socket Mode.
   */
  http: { url: string; secret: string } | undefined;

  private async deliver(envelope: Omit<Envelope, 'envelope_id'>): Promise<unknown> {
    if (!this.http) return this.hub.send(envelope);
    const json = JSON.stringify(envelope.payload);
    const events = envelope.type === 'events_api';
    const body = events ? json : `payload=${encodeURIComponent(json)}`;
    const retry = Number(envelope.retry_attempt ?? 0);
    const res = await fetch(this.http.url, {
      method: 'POST', body,
      headers: {
        'content-type': events ? 'application/json' : 'application/x-www-form-urlencoded',
        ...signSlackRequest(this.http.secret, body),
        ...(retry ? { 'x-slack-retry-num': String(retry), 'x-slack-retry-reason': 'http_timeout' } : {}),
      },
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`fake slack: the Request URL answered ${res.status}: ${text.slice(0, 200)}`);
    try {
      return text ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
  }

  nextTs(): string {
    this.tsCounter++;
    return `${1_700_000_000 + this.tsCounter}.${String(this.tsCounter).padStart(6, '0')}`;
  }

  /** Unreachable: every connection is reset (as if Slack were down / the network cut). */
  setDown(down: boolean): void {
    this.down = down;
    if (down) this.hub.terminateAll();
  }

  /**
   * Make chat.startStream / appendStream / stopStream answer `error` (unknown_method: an older
   * Slack; not_allowed; channel_type_not_supported ...); undefined streams again.
   */
  refuseStreaming(error: string | undefined): void {
    this.state.streamRefusal = error;
  }

  /** The next `times` calls of `method` are answered `ms` late (a slow Slack), then as usual. */
  slow(method: string, ms: number, times = 1): void {
    this.slowCalls.set(method, { ms, times });
  }

  fault(method: string, f: Omit<Fault, 'times'> & { times?: number }): void {
    this.faults.set(method, { ...f, times: f.times ?? 1 });
  }

  callsTo(method: string): CallRecord[] {
    return this.calls.filter((c) => c.method === method);
  }

  get rateLimitedCount(): number {
    return this.calls.filter((c) => c.status === 429).length;
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.down) { req.socket.destroy(); return; }
    const url = new URL(req.url ?? '/', this.baseUrl);
    if (url.pathname.startsWith('/api/') && req.method === 'POST') return this.api(url.pathname.slice(5), req, res);
    if (url.pathname.startsWith('/files-pri/')) return this.download(url.pathname, req, res);
    if (url.pathname.startsWith('/upload/v1/') && req.method === 'POST') {
      const got = await this.state.uploads.receive(url.pathname.slice('/upload/v1/'.length), req, res);
      this.calls.push({ method: 'POST upload', params: { bytes: got.bytes }, auth: 'none', status: got.status, ok: got.status === 200, at: Date.now() });
      this.emit('change');
      return;
    }
    if (url.pathname === '/signin') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><body>Sign in to Fake Team</body></html>');
      return;
    }
    if (url.pathname.startsWith('/respond/') && req.method === 'POST') {
      const body = await readBody(req);
      this.record('response_url', JSON.parse(body || '{}'), 'none', 200, { ok: true });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
      return;
    }
    res.writeHead(404);
    res.end();
  }

  private authOf(token: string): string {
    if (!token) return 'none';
    if (token === this.state.botToken) return 'bot';
    if (token === this.state.appToken) return 'app';
    return 'other';
  }

  private async api(method: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let params: Record<string, any> = {};
    if ((req.headers['content-type'] ?? '').includes('application/json')) {
      params = raw ? JSON.parse(raw) : {};
    } else {
      for (const [k, v] of new URLSearchParams(raw)) {
        params[k] = v;
        if (JSON_FIELDS.includes(k)) { try { params[k] = JSON.parse(v); } catch { /* keep the string */ } }
      }
    }
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : String(params.token ?? '');
    delete params.token;
    const scopes = token === this.state.botToken ? { 'x-oauth-scopes': this.scopes.join(',') } : {};
    const send = (status: number, answer: ApiAnswer, headers: Record<string, string> = {}): void => {
      this.record(method, params, this.authOf(token), status, answer);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...scopes, ...headers });
      res.end(JSON.stringify(answer));
    };
    const slow = this.slowCalls.get(method);
    if (slow && slow.times > 0) {
      slow.times--;
      await new Promise((r) => setTimeout(r, slow.ms));
    }
    const f = this.faults.get(method);
    if (f && f.times > 0) {
      f.times--;
      if (f.status === 429) return send(429, { ok: false, error: 'ratelimited' }, f.retryAfter === undefined ? {} : { 'retry-after': f.retryAfter });
      if (f.status && f.status !== 200) return send(f.status, { ok: false, error: 'fault' });
      return send(200, { ok: false, error: f.error ?? 'fatal_error' });
    }
    const retryAfter = this.limiter.check(method, this.state.team, params.channel ?? params.channel_id);
    if (retryAfter > 0) return send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) });
    send(200, handleMethod(this.state, method, params, token));
  }

  private record(method: string, params: Record<string, any>, auth: string, status: number, answer: ApiAnswer): void {
    this.calls.push({ method, params, auth, status, ok: answer.ok, ...(answer.ok ? {} : { error: answer.error }), at: Date.now() });
    this.emit('change');
  }

  private download(path: string, req: IncomingMessage, res: ServerResponse): void {
    const id = path.split('/')[2]?.split('-')[1] ?? '';
    const entry = this.files.get(id);
    const auth = req.headers.authorization === `Bearer ${this.state.botToken}`;
    this.calls.push({ method: 'GET file', params: { path }, auth: auth ? 'bot' : 'none', status: auth ? 200 : 302, ok: auth, at: Date.now() });
    if (!auth) { res.writeHead(302, { location: '/signin' }); res.end(); return; }
    if (!entry) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': entry.file.mimetype, 'content-length': String(entry.bytes.length) });
    res.end(entry.bytes);
  }

  addFile(name: string, mimetype: string, bytes: Buffer, id = `F${String(this.files.size + 1).padStart(6, '0')}`): FakeFile {
    const url = `${this.baseUrl}/files-pri/${TEAM}-${id}/${encodeURIComponent(name)}`;
    const file: FakeFile = { id, name, mimetype, size: bytes.length, url_private: url, url_private_download: `${url}?download=1`, mode: 'hosted' };
    this.files.set(id, { file, bytes });
    return file;
  }

  /** Deliver an Events API envelope; resolves when the client acked it. */
  async sendEvent(event: Record<string, unknown>, opts: { eventId?: string; retryAttempt?: number } = {}): Promise<string> {
    const eventId = opts.eventId ?? `Ev${String(++this.eventCounter).padStart(8, '0')}`;
    await this.deliver({
      type: 'events_api',
      accepts_response_payload: false,
      retry_attempt: opts.retryAttempt ?? 0,
      retry_reason: opts.retryAttempt ? 'timeout' : '',
      payload: this.eventBody(event, eventId),
    });
    return eventId;
  }

  /** The Events API body (also what HTTP mode POSTs). */
  eventBody(event: Record<string, unknown>, eventId: string): Record<string, unknown> {
    return {
      token: 'verification-token', team_id: TEAM, api_app_id: APP_ID, event, type: 'event_callback',
      event_id: eventId, event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ enterprise_id: null, team_id: TEAM, user_id: BOT_USER, is_bot: true, is_enterprise_install: false }],
      is_ext_shared_channel: false,
    };
  }

  /**
   * A person writes a message. In a channel with a mention, Slack sends app_mention AND
   * message (message.channels subscribed); in a DM only message (channel_type im).
   */
  async userMessage(m: { channel: string; user: string; text: string; threadTs?: string; files?: FakeFile[]; dm?: boolean; botId?: string }): Promise<{ ts: string; eventIds: string[] }> {
    const ts = this.nextTs();
    const dm = m.dm ?? m.channel.startsWith('D');
    const base: Record<string, unknown> = {
      user: m.user, text: m.text, ts, channel: m.channel, event_ts: ts, team: TEAM,
      ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
      ...(m.files?.length ? { files: m.files, upload: false } : {}),
      ...(m.botId ? { bot_id: m.botId } : {}),
    };
    this.state.messages.set(`${m.channel}:${ts}`, { channel: m.channel, ts, ...(m.threadTs ? { thread_ts: m.threadTs } : {}), user: m.user, text: m.text, blocks: [], history: [], reactions: new Set() });
    const eventIds: string[] = [];
    const mention = !dm && m.text.includes(`<@${BOT_USER}>`);
    if (mention) eventIds.push(await this.sendEvent({ type: 'app_mention', ...base }));
    eventIds.push(await this.sendEvent({
      type: 'message', ...base, channel_type: dm ? 'im' : 'channel',
      ...(m.files?.length ? { subtype: 'file_share' } : {}),
    }));
    return { ts, eventIds };
  }

  /**
   * A button click (block_actions), as Socket Mode delivers it. Resolves when acked. `ticked`:
   * the checkboxes the person ticked in the message first (action_id -> the options' values), sent
   * as Slack sends them, in the click's `state.values` under their block (each must be an option
   * of that checkboxes element).
   */
  async click(c: { user: string; userName?: string; actionId: string; value: string; channel: string; messageTs: string; ticked?: Record<string, string[]> }): Promise<void> {
    const msg = this.state.messages.get(`${c.channel}:${c.messageTs}`);
    const values: Record<string, Record<string, unknown>> = {};
    for (const [actionId, picked] of Object.entries(c.ticked ?? {})) {
      const block = msg?.blocks.find((b) => b.type === 'actions' && (b.elements ?? []).some((e: any) => e.action_id === actionId && e.type === 'checkboxes'));
      if (!block) throw new Error(`fake slack: no checkboxes ${actionId} on that message`);
      const element = block.elements.find((e: any) => e.action_id === actionId);
      const options = picked.map((v) => {
        const o = element.options.find((x: any) => x.value === v);
        if (!o) throw new Error(`fake slack: checkboxes ${actionId} have no option ${v}`);
        return o;
      });
      values[block.block_id ?? 'b'] = { ...values[block.block_id ?? 'b'], [actionId]: { type: 'checkboxes', selected_options: options } };
    }
    await this.deliver({
      type: 'interactive',
      accepts_response_payload: true,
      payload: {
        type: 'block_actions',
        user: { id: c.user, username: c.userName ?? c.user, name: c.userName ?? c.user, team_id: TEAM },
        api_app_id: APP_ID, token: 'verification-token',
        container: { type: 'message', message_ts: c.messageTs, channel_id: c.channel, is_ephemeral: false },
        trigger_id: this.trigger(), team: { id: TEAM, domain: 'fake' },
        channel: { id: c.channel, name: 'general' },
        message: { type: 'message', ts: c.messageTs, user: msg?.user, text: msg?.text ?? '', blocks: msg?.blocks ?? [], ...(msg?.thread_ts ? { thread_ts: msg.thread_ts } : {}) },
        response_url: `${this.baseUrl}/respond/${randomUUID()}`,
        actions: [{ action_id: c.actionId, block_id: 'b', value: c.value, type: 'button', action_ts: this.nextTs(), text: { type: 'plain_text', text: c.actionId } }],
        ...(c.ticked ? { state: { values } } : {}),
      },
    });
  }

  /** The agent session of a thread as Slack holds it now (undefined: none). */
  session(channel: string, threadTs: string): FakeSession | undefined {
    return sessionOf(this.state, channel, threadTs);
  }

  /**
   * A person clicks Slack's own Stop on a thread's agent session (agent-sessions.ts,
   * clickNativeStop). Resolves when agent_session_stopped was acked.
   */
  nativeStop(c: { channel: string; threadTs: string; user: string }): Promise<{ eventId: string; stopped: string[] }> {
    return clickNativeStop(this, c);
  }

  /** A person opens the app's Messages tab (app_home_opened, tab "messages", in their DM with the app). */
  async appHomeOpened(c: { user: string; channel: string }): Promise<string> {
    return this.sendEvent({ type: 'app_home_opened', user: c.user, channel: c.channel, tab: 'messages', event_ts: this.nextTs() });
  }

  /** assistant.threads.setSuggestedPrompts calls that took effect, oldest first. */
  get suggestedPrompts(): SuggestedPromptsCall[] {
    return this.state.suggestedPrompts;
  }

  private trigger(): string {
    const id = `${this.nextTs()}.${randomUUID().slice(0, 8)}`;
    this.state.triggers.set(id, { at: Date.now(), used: false });
    return id;
  }

  /**
   * A person submits a modal (view_submission) with `value` in its text input. Resolves with the
   * ack payload: undefined when the modal may close, {response_action:'errors', errors} otherwise.
   * `view` defaults to the last modal views.open opened.
   */
  async submitView(s: { user: string; userName?: string; value: string; view?: Record<string, any> }): Promise<{ response_action?: string; errors?: Record<string, string> } | undefined> {
    const view = s.view ?? this.state.views.at(-1)?.view;
    if (!view) throw new Error('fake slack: no modal was opened');
    const input = (view.blocks as Array<Record<string, any>>).find((b) => b.type === 'input');
    const values = input ? { [input.block_id]: { [input.element.action_id]: { type: 'plain_text_input', value: s.value } } } : {};
    const ack = await this.deliver({
      type: 'interactive',
      accepts_response_payload: true,
      payload: {
        type: 'view_submission',
        team: { id: TEAM, domain: 'fake' },
        user: { id: s.user, username: s.userName ?? s.user, name: s.userName ?? s.user, team_id: TEAM },
        api_app_id: APP_ID, token: 'verification-token', trigger_id: this.trigger(),
        view: { id: 'V0SUBMIT', team_id: TEAM, type: 'modal', ...view, state: { values }, hash: 'h', app_id: APP_ID, bot_id: BOT_ID },
        response_urls: [],
      },
    });
    this.emit('change');
    // Bolt acks a plain ack() with an empty payload: the modal closes.
    const payload = ack && typeof ack === 'object' && Object.keys(ack).length > 0 ? ack : undefined;
    return payload as { response_action?: string; errors?: Record<string, string> } | undefined;
  }

  get views(): Array<{ id: string; trigger_id: string; view: Record<string, any> }> {
    return this.state.views;
  }

  /** Bot messages in a channel (optionally one thread, '' = top level only), oldest first. */
  botMessages(channel: string, thread?: string): FakeMessage[] {
    return [...this.state.messages.values()]
      .filter((m) => m.channel === channel && m.user === BOT_USER)
      .filter((m) => thread === undefined || (thread === '' ? !m.thread_ts : m.thread_ts === thread))
      .sort((a, b) => Number(a.ts) - Number(b.ts));
  }

  /** The bytes of a file the fake holds (a person's, or one the bot uploaded and shared). */
  fileBytes(id: string): Buffer | undefined {
    return this.files.get(id)?.bytes;
  }

  /** Uploads started with files.getUploadURLExternal and never completed. */
  get pendingUploads(): number {
    return this.state.uploads.pending;
  }

  message(channel: string, ts: string): FakeMessage | undefined {
    return this.state.messages.get(`${channel}:${ts}`);
  }

  get ephemerals(): Ephemeral[] {
    return this.state.ephemerals;
  }

  /** Resolve once `check` returns a truthy value (re-checked on every call, ack and socket change). */
  waitFor<T>(check: () => T | undefined | false | null, what = 'condition', timeoutMs = 20_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const tryIt = (): boolean => {
        const v = check();
        if (v) { cleanup(); resolve(v); return true; }
        return false;
      };
      const onChange = (): void => { tryIt(); };
      const timer = setTimeout(() => { cleanup(); reject(new Error(`fake slack: timed out waiting for ${what}`)); }, timeoutMs);
      const cleanup = (): void => { clearTimeout(timer); this.off('change', onChange); };
      this.on('change', onChange);
      tryIt();
    });
  }

  async close(): Promise<void> {
    await this.hub.close();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
