/**
 * The Socket Mode side of the fake: apps.connections.open hands out ws:// URLs with a ticket;
 * the socket gets `hello`, then envelopes (events_api, interactive) that the client must ack
 * by envelope_id. `disconnect` messages and server-side closes exercise reconnects.
 * With several connections open (several replicas of one app), `spread` says which one gets an
 * envelope: Slack sends each to one connection of its choosing, so an event and the click on
 * the prompt it caused can reach different replicas. `round-robin` does that deterministically.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export interface Envelope {
  envelope_id: string;
  type: 'events_api' | 'interactive';
  payload: Record<string, unknown>;
  accepts_response_payload: boolean;
  retry_attempt?: number;
  retry_reason?: string;
}

interface Pending {
  resolve: (ackPayload: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export class SocketModeHub {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly sockets = new Set<WebSocket>();
  private readonly pending = new Map<string, Pending>();
  private readonly waiters: Array<() => void> = [];
  /** Every socket ever opened (tests assert reconnects). */
  opened = 0;
  acks: string[] = [];
  /** Which open connection gets the next envelope: the newest (default) or each in turn. */
  spread: 'latest' | 'round-robin' = 'latest';
  private turn = 0;
  /**
   * Tests that need one replica to hold given turns: envelopes go to this connection (its number,
   * see deliveredTo) while it is open, whatever `spread` says. Slack gives no such promise; the
   * app must not rely on where an event lands, and the tests then check it does not.
   */
  pin: number | undefined;
  /** Connection number (in order of opening, from 1) that each envelope was sent to. */
  readonly deliveredTo = new Map<string, number>();
  private readonly numbers = new WeakMap<WebSocket, number>();

  constructor(server: Server, private readonly appId: string, private readonly onChange: () => void) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const ticket = url.searchParams.get('ticket') ?? '';
      if (url.pathname !== '/link/' || !this.tickets.delete(ticket)) {
        socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
        socket.destroy();
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws));
    });
  }

  /** A one-time URL, as apps.connections.open returns it. */
  issueUrl(baseWs: string): string {
    const ticket = randomUUID();
    this.tickets.add(ticket);
    return `${baseWs}/link/?ticket=${ticket}&app_id=${this.appId}`;
  }

  get connections(): number {
    return this.sockets.size;
  }

  private onConnection(ws: WebSocket): void {
    this.sockets.add(ws);
    this.opened++;
    this.numbers.set(ws, this.opened);
    ws.on('message', (data) => {
      let msg: { envelope_id?: string; payload?: unknown };
      try {
        msg = JSON.parse(String(data));
      } catch {
        return;
      }
      if (!msg.envelope_id) return;
      this.acks.push(msg.envelope_id);
      const p = this.pending.get(msg.envelope_id);
      if (p) {
        this.pending.delete(msg.envelope_id);
        clearTimeout(p.timer);
        p.resolve(msg.payload);
      }
      this.onChange();
    });
    ws.on('close', () => {
      this.sockets.delete(ws);
      this.onChange();
    });
    ws.send(JSON.stringify({
      type: 'hello', num_connections: this.sockets.size,
      debug_info: { host: 'fake-applink', build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: this.appId },
    }));
    const w = this.waiters.splice(0);
    for (const f of w) f();
    this.onChange();
  }

  private async socket(timeoutMs: number): Promise<WebSocket> {
    const open = [...this.sockets].filter((s) => s.readyState === s.OPEN);
    const pinned = this.pin === undefined ? undefined : open.find((s) => this.numbers.get(s) === this.pin);
    if (pinned) return pinned;
    if (open.length) return this.spread === 'latest' ? open[open.length - 1]! : open[this.turn++ % open.length]!;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('fake slack: no Socket Mode connection to deliver to')), timeoutMs);
      this.waiters.push(() => { clearTimeout(t); resolve(); });
    });
    return this.socket(timeoutMs);
  }

  /** Send an envelope and resolve with the ack payload (rejects when not acked in time). */
  async send(envelope: Omit<Envelope, 'envelope_id'> & { envelope_id?: string }, timeoutMs = 10_000): Promise<unknown> {
    const ws = await this.socket(timeoutMs);
    const id = envelope.envelope_id ?? randomUUID();
    const full = { ...envelope, envelope_id: id };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`fake slack: envelope ${envelope.type} not acked`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.deliveredTo.set(id, this.numbers.get(ws) ?? 0);
      ws.send(JSON.stringify(full));
    });
  }

  /** Slack-style `disconnect` message to every open socket (the client closes and reconnects). */
  disconnectAll(reason: 'warning' | 'refresh_requested' | 'link_disabled' = 'refresh_requested'): void {
    for (const ws of this.sockets) ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-applink' } }));
  }

  /** Drop every socket without a goodbye. */
  terminateAll(): void {
    for (const ws of this.sockets) ws.terminate();
  }

  async close(): Promise<void> {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error('fake slack closed'));
    }
    this.pending.clear();
    for (const ws of this.sockets) ws.terminate();
    await new Promise<void>((r) => this.wss.close(() => r()));
  }
}
