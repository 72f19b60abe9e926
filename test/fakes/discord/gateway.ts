/**
 * The fake gateway: HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeats/ACK, RESUME with replay of
 * what was dispatched while the client was away, op 7 RECONNECT, and close codes on demand.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export const INTENTS = { Guilds: 1 << 0, GuildMessages: 1 << 9, DirectMessages: 1 << 12, MessageContent: 1 << 15 } as const;

export interface GatewayOptions {
  token: string;
  heartbeatIntervalMs: number;
  /** Privileged intents enabled "in the portal"; identifying with another one closes 4014. */
  allowMessageContent: boolean;
  /** READY `d` and the GUILD_CREATE payload for a new session. */
  ready(sessionId: string, resumeUrl: string): { ready: Record<string, unknown>; guildCreate: Record<string, unknown> };
}

export interface GatewayEvent { at: number; dir: 'in' | 'out' | 'event'; op?: number; t?: string; detail?: string }

interface Session { id: string; seq: number; events: { s: number; t: string; d: unknown }[]; socket?: WebSocket; intents: number }

export class FakeGateway {
  private readonly wss = new WebSocketServer({ noServer: true });
  private session?: Session;
  private baseUrl = '';
  readonly log: GatewayEvent[] = [];
  identifies = 0;
  resumes = 0;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly opts: GatewayOptions) {}

  setBaseUrl(url: string): void {
    this.baseUrl = url;
  }

  get intents(): number {
    return this.session?.intents ?? 0;
  }

  get connected(): boolean {
    return this.session?.socket !== undefined;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/gateway' && path !== '/resume') {
      socket.destroy();
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, req.url ?? ''));
  }

  private note(e: Omit<GatewayEvent, 'at'>): void {
    this.log.push({ at: Date.now(), ...e });
    for (const w of [...this.waiters]) w();
  }

  private send(ws: WebSocket, payload: { op: number; d: unknown; s?: number | null; t?: string | null }): void {
    this.note({ dir: 'out', op: payload.op, t: payload.t ?? undefined });
    ws.send(JSON.stringify({ s: null, t: null, ...payload }));
  }

  private onConnection(ws: WebSocket, url: string): void {
    this.note({ dir: 'event', detail: `connect ${url}` });
    this.send(ws, { op: 10, d: { heartbeat_interval: this.opts.heartbeatIntervalMs } });
    ws.on('message', (raw) => {
      let msg: { op: number; d: any };
      try { msg = JSON.parse(String(raw)); } catch { ws.close(4002, 'Decode error'); return; }
      this.note({ dir: 'in', op: msg.op });
      if (msg.op === 1) this.send(ws, { op: 11, d: null });
      else if (msg.op === 2) this.identify(ws, msg.d);
      else if (msg.op === 6) this.resume(ws, msg.d);
    });
    ws.on('close', (code) => {
      this.note({ dir: 'event', detail: `close ${code}` });
      if (this.session?.socket === ws) this.session.socket = undefined;
    });
  }

  private tokenOk(token: unknown): boolean {
    return typeof token === 'string' && token.replace(/^Bot /, '') === this.opts.token;
  }

  private identify(ws: WebSocket, d: { token?: string; intents?: number }): void {
    if (!this.tokenOk(d.token)) { ws.close(4004, 'Authentication failed.'); return; }
    const intents = Number(d.intents ?? 0);
    if ((intents & INTENTS.MessageContent) && !this.opts.allowMessageContent) { ws.close(4014, 'Disallowed intent(s).'); return; }
    this.identifies++;
    if (this.session?.socket && this.session.socket !== ws) this.session.socket.close(4009, 'Session superseded');
    const id = randomUUID().replace(/-/g, '');
    this.session = { id, seq: 0, events: [], socket: ws, intents };
    const { ready, guildCreate } = this.opts.ready(id, `${this.baseUrl}/resume`);
    this.dispatch('READY', ready);
    this.dispatch('GUILD_CREATE', guildCreate);
  }

  private resume(ws: WebSocket, d: { token?: string; session_id?: string; seq?: number }): void {
    const s = this.session;
    if (!s || !this.tokenOk(d.token) || d.session_id !== s.id) {
      this.send(ws, { op: 9, d: false });
      return;
    }
    this.resumes++;
    s.socket = ws;
    for (const e of s.events) if (e.s > Number(d.seq ?? 0)) this.send(ws, { op: 0, s: e.s, t: e.t, d: e.d });
    this.dispatch('RESUMED', {});
  }

  /** Queue an event in the session; sent now when connected, replayed on RESUME otherwise. */
  dispatch(t: string, d: unknown): void {
    const s = this.session;
    if (!s) return;
    s.seq++;
    s.events.push({ s: s.seq, t, d });
    if (s.socket) this.send(s.socket, { op: 0, s: s.seq, t, d });
    else this.note({ dir: 'event', detail: `buffered ${t}` });
  }

  /** op 7: the client closes, reconnects to resume_gateway_url and resumes. */
  requestReconnect(): void {
    if (this.session?.socket) this.send(this.session.socket, { op: 7, d: null });
  }

  closeSocket(code: number, reason = ''): void {
    this.session?.socket?.close(code, reason);
  }

  /** Resolves when `pred` holds (checked on every gateway event). */
  until(pred: () => boolean): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve) => {
      const w = (): void => { if (pred()) { this.waiters.delete(w); resolve(); } };
      this.waiters.add(w);
    });
  }

  close(): void {
    for (const c of this.wss.clients) c.terminate();
    this.wss.close();
  }
}
