/**
 * The fake gateway: HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeats/ACK, RESUME with replay of
 * what was dispatched while the client was away, op 7 RECONNECT, and close codes on demand.
 * Sharded like Discord: a session identifies as [shard_id, num_shards] and receives only the events
 * of guilds with (guild_id >> 22) % num_shards === shard_id; events without a guild (DMs) go to
 * shard 0. A second IDENTIFY for a shard supersedes the first session of that shard.
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
  /** READY `d` and the GUILD_CREATE payloads (of this shard's guilds) for a new session. */
  ready(sessionId: string, resumeUrl: string, shard: [number, number]): { ready: Record<string, unknown>; guildCreates: Record<string, unknown>[] };
}

export interface GatewayEvent { at: number; dir: 'in' | 'out' | 'event'; op?: number; t?: string; detail?: string }

interface Session { id: string; seq: number; events: { s: number; t: string; d: unknown }[]; socket?: WebSocket; intents: number; shard: [number, number] }

/** Discord's rule: which shard a guild's events go to (DMs: shard 0). */
export function shardOf(guildId: string | undefined, numShards: number): number {
  if (!guildId || numShards <= 1) return 0;
  return Number((BigInt(guildId) >> 22n) % BigInt(numShards));
}

export class FakeGateway {
  private readonly wss = new WebSocketServer({ noServer: true });
  /** Live sessions by shard id. */
  private readonly sessions = new Map<number, Session>();
  private numShards = 1;
  private baseUrl = '';
  readonly log: GatewayEvent[] = [];
  identifies = 0;
  resumes = 0;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly opts: GatewayOptions) {}

  setBaseUrl(url: string): void {
    this.baseUrl = url;
  }

  /** Intents of the session that receives DMs (shard 0). */
  get intents(): number {
    return this.intentsFor(undefined);
  }

  /** Intents of the session that receives this guild's events. */
  intentsFor(guildId: string | undefined): number {
    return this.sessions.get(shardOf(guildId, this.numShards))?.intents ?? 0;
  }

  get connected(): boolean {
    return [...this.sessions.values()].some((s) => s.socket !== undefined);
  }

  /** The shards with a live session, e.g. [[0, 2], [1, 2]]. */
  get shards(): Array<[number, number]> {
    return [...this.sessions.values()].filter((s) => s.socket).map((s) => s.shard);
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
      for (const s of this.sessions.values()) if (s.socket === ws) s.socket = undefined;
    });
  }

  private tokenOk(token: unknown): boolean {
    return typeof token === 'string' && token.replace(/^Bot /, '') === this.opts.token;
  }

  private identify(ws: WebSocket, d: { token?: string; intents?: number; shard?: [number, number] }): void {
    if (!this.tokenOk(d.token)) { ws.close(4004, 'Authentication failed.'); return; }
    const intents = Number(d.intents ?? 0);
    if ((intents & INTENTS.MessageContent) && !this.opts.allowMessageContent) { ws.close(4014, 'Disallowed intent(s).'); return; }
    const shard: [number, number] = Array.isArray(d.shard) ? [Number(d.shard[0]), Number(d.shard[1])] : [0, 1];
    if (!(shard[1] >= 1) || !(shard[0] >= 0 && shard[0] < shard[1])) { ws.close(4010, 'Invalid shard.'); return; }
    this.identifies++;
    const old = this.sessions.get(shard[0]);
    if (old?.socket && old.socket !== ws) old.socket.close(4009, 'Session superseded');
    if (shard[1] !== this.numShards) {
      // the bot was resharded: sessions of the old layout no longer receive anything
      this.numShards = shard[1];
      for (const [k, old] of this.sessions) if (old.shard[1] !== shard[1]) {
        old.socket?.close(4009, 'Session superseded');
        this.sessions.delete(k);
      }
    }
    const id = randomUUID().replace(/-/g, '');
    const session: Session = { id, seq: 0, events: [], socket: ws, intents, shard };
    this.sessions.set(shard[0], session);
    const { ready, guildCreates } = this.opts.ready(id, `${this.baseUrl}/resume`, shard);
    this.send(ws, this.sequence(session, 'READY', ready));
    for (const g of guildCreates) this.send(ws, this.sequence(session, 'GUILD_CREATE', g));
  }

  private sequence(s: Session, t: string, d: unknown): { op: number; s: number; t: string; d: unknown } {
    s.seq++;
    s.events.push({ s: s.seq, t, d });
    return { op: 0, s: s.seq, t, d };
  }

  private resume(ws: WebSocket, d: { token?: string; session_id?: string; seq?: number }): void {
    const s = [...this.sessions.values()].find((x) => x.id === d.session_id);
    if (!s || !this.tokenOk(d.token)) {
      this.send(ws, { op: 9, d: false });
      return;
    }
    this.resumes++;
    s.socket = ws;
    for (const e of s.events) if (e.s > Number(d.seq ?? 0)) this.send(ws, { op: 0, s: e.s, t: e.t, d: e.d });
    this.send(ws, this.sequence(s, 'RESUMED', {}));
  }

  /**
   * Queue an event in the session of the shard it belongs to (by its guild_id; none: shard 0);
   * sent now when connected, replayed on RESUME otherwise.
   */
  dispatch(t: string, d: unknown): void {
    const guildId = (d as { guild_id?: string } | null)?.guild_id;
    const s = this.sessions.get(shardOf(guildId, this.numShards));
    if (!s) return;
    const frame = this.sequence(s, t, d);
    if (s.socket) this.send(s.socket, frame);
    else this.note({ dir: 'event', detail: `buffered ${t}` });
  }

  /** op 7 to every live session: the client closes, reconnects to resume_gateway_url and resumes. */
  requestReconnect(): void {
    for (const s of this.sessions.values()) if (s.socket) this.send(s.socket, { op: 7, d: null });
  }

  closeSocket(code: number, reason = ''): void {
    for (const s of this.sessions.values()) s.socket?.close(code, reason);
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
