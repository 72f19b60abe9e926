// The loopback HTTP server under the fake model APIs: records every request (method, path,
// headers, parsed JSON body), hands model calls to the API's streamer, refuses WebSocket upgrades.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a test scripts for one model call. */
export interface ModelReply {
  /** Reasoning shown apart from the answer (Anthropic thinking, OpenAI reasoning summary, Gemini thought). */
  thinking?: string;
  /** The answer, streamed word by word. */
  text?: string;
  /** A tool call the CLI should run (the name and input in the CLI's own tool vocabulary). */
  tool?: { name: string; input: unknown };
  /** An HTTP error instead of a stream. */
  status?: number;
  message?: string;
  /** Start the stream, then send nothing more until the client goes away (a Stop test). */
  hang?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** The raw body, for "the fake saw the earlier turn" checks. */
  raw: string;
}

/** A model call as the script sees it: the request, its index among model calls, tool results in it. */
export interface ModelCall {
  request: RecordedRequest;
  index: number;
  /** Text of the tool results the CLI sent back in this request (empty when none). */
  toolResults: string[];
}

export type ModelScript = (call: ModelCall) => ModelReply;

export interface ApiRoutes {
  /** True when the request is a model call to stream (the rest are answered by `other`). */
  isModelCall(req: RecordedRequest): boolean;
  toolResults(body: unknown): string[];
  stream(res: ServerResponse, reply: ModelReply, call: ModelCall): void;
  error(res: ServerResponse, status: number, message: string): void;
  /** Non-model requests (token counting, a router's classifier); 404 when it returns false. */
  other?(req: RecordedRequest, res: ServerResponse): boolean;
}

export class ModelApiServer {
  readonly requests: RecordedRequest[] = [];
  readonly upgrades: RecordedRequest[] = [];
  readonly modelCalls: ModelCall[] = [];
  script: ModelScript = () => ({ text: 'Hello from the fake model.' });
  private readonly server: Server;
  private readonly open = new Set<ServerResponse>();
  private waiters: Array<{ pred: (c: ModelCall) => boolean; resolve: (c: ModelCall) => void }> = [];

  constructor(private readonly routes: ApiRoutes) {
    this.server = createServer((req, res) => this.onRequest(req, res));
    // Codex tries a Responses WebSocket first; refusing the upgrade makes it fall back to HTTPS.
    this.server.on('upgrade', (req, socket) => {
      this.upgrades.push({ method: req.method ?? 'GET', path: req.url ?? '', headers: req.headers, body: null, raw: '' });
      socket.end('HTTP/1.1 426 Upgrade Required\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves with the first model call (past or future) that matches. */
  modelCall(pred: (c: ModelCall) => boolean = () => true): Promise<ModelCall> {
    const seen = this.modelCalls.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try { body = raw ? JSON.parse(raw) : null; } catch { body = null; }
      const rec: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '', headers: req.headers, body, raw };
      this.requests.push(rec);
      if (!this.routes.isModelCall(rec)) {
        if (!this.routes.other?.(rec, res)) { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{"error":{"message":"not found in the fake"}}'); }
        return;
      }
      const call: ModelCall = { request: rec, index: this.modelCalls.length, toolResults: this.routes.toolResults(body) };
      this.modelCalls.push(call);
      const reply = this.script(call);
      this.open.add(res);
      res.on('close', () => this.open.delete(res));
      if (reply.status !== undefined) this.routes.error(res, reply.status, reply.message ?? `fake error ${reply.status}`);
      else this.routes.stream(res, reply, call);
      this.waiters = this.waiters.filter((w) => (w.pred(call) ? (w.resolve(call), false) : true));
    });
  }
}

/** Writes one server-sent event (named when `event` is given). */
export function sse(res: ServerResponse, data: unknown, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

/** The text in word-sized pieces, so a CLI that streams shows more than one delta. */
export function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Strings found anywhere in a JSON value under keys named `key`. */
export function stringsUnder(value: unknown, key: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) { v.forEach(walk); return; }
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === key && typeof x === 'string') out.push(x);
      else walk(x);
    }
  };
  walk(value);
  return out;
}
