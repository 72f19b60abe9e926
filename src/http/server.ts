import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';
import type { PlatformStatus } from '../bridge/index.js';
import { bearerToken, sameSecret } from './bearer.js';
import { createHostCheck, hostnameOf } from './host-check.js';
import { sendJson, sendText } from './respond.js';

/**
 * Handles every request under a mounted prefix. `url.pathname` is the full path; `subpath` is the
 * part after the prefix, always starting with "/".
 */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, ctx: { url: URL; subpath: string }) => void | Promise<void>;

/** What platforms get to add routes (the local page, later Slack's HTTP receiver). */
export interface HttpMount {
  /**
   * Serve everything under `prefix` ("/" = catch-all). The longest matching prefix wins; built-in
   * routes win over mounts. `signed`: the requests authenticate themselves (Slack's signed
   * events), so the Host check is skipped for them.
   */
  mount(prefix: string, handler: RouteHandler, opts?: { signed?: boolean }): void;
  /** Run when the server starts closing (end long-lived streams such as SSE). */
  onClose(fn: () => void): void;
}

/** Anything whose readiness /readyz reports (a Platform fits). */
export interface ReadinessSource {
  readonly name: string;
  status(): PlatformStatus;
}

export interface HttpServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  logger: Logger;
  /** Prometheus text for GET /metrics. */
  metrics?: () => string | Promise<string>;
  /** Host names served besides loopback names and IP literals (TURNBRIDGE_ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
  /**
   * TURNBRIDGE_METRICS_TOKEN. When set, /metrics answers only `Authorization: Bearer <token>`
   * (401 otherwise), and /readyz shows its details (platforms, checks, replica) only with it:
   * without it /readyz answers the same status code with `{status}` alone, all a probe reads.
   */
  metricsToken?: string;
  /** Time to receive a whole request, headers and body (default 30 s); responses (SSE) are not bound by it. */
  requestTimeoutMs?: number;
  /** Time to receive the request headers (default 20 s). */
  headersTimeoutMs?: number;
  /** How often node checks those timeouts (default 30 s; tests use less). */
  timeoutCheckIntervalMs?: number;
}

export interface HttpServer extends HttpMount {
  /** Bind host:port; resolves with the URL people open. */
  listen(): Promise<string>;
  /** The base URL once listening ("http://127.0.0.1:3000/"). */
  readonly url: string;
  readonly port: number;
  /** Add a platform to /readyz. */
  addReadiness(source: ReadinessSource): void;
  /** Add `key: fn()` to every /readyz body (details such as the start-up checks; the status code is unchanged). */
  addReadyDetail(key: string, fn: () => unknown): void;
  /** /readyz answers 503 "shutting down" from now on. */
  setDraining(): void;
  /** Stop accepting, let requests finish for up to graceMs, then drop the rest (SSE streams). */
  close(graceMs?: number): Promise<void>;
}

interface Mounted { prefix: string; handler: RouteHandler; signed: boolean }

/** One node:http server: /healthz, /readyz, /metrics, plus whatever platforms mount. */
export function createHttpServer(opts: HttpServerOptions): HttpServer {
  const log = opts.logger;
  const mounts: Mounted[] = [];
  const sources: ReadinessSource[] = [];
  const details = new Map<string, () => unknown>();
  const closeHooks: Array<() => void> = [];
  let draining = false;
  let boundUrl = '';
  let boundPort = 0;

  const server: Server = createServer({ connectionsCheckingInterval: opts.timeoutCheckIntervalMs ?? 30_000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err, path: req.url }, 'http handler failed');
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.end();
    });
  });
  // requestTimeout bounds receiving the request (a slow body cannot hold a socket forever);
  // it does not apply to the response, so SSE streams stay open for hours.
  server.requestTimeout = opts.requestTimeoutMs ?? 30_000;
  server.headersTimeout = Math.min(opts.headersTimeoutMs ?? 20_000, server.requestTimeout || Infinity);
  const hostAllowed = createHostCheck({ bindHost: opts.host, allowedHosts: opts.allowedHosts });
  let refusedHosts = 0;
  let refusedTokens = 0;

  /** May this request read what operators read (/metrics, /readyz details)? Always, without a token set. */
  function operator(req: IncomingMessage): 'yes' | 'no token' | 'wrong token' {
    if (!opts.metricsToken) return 'yes';
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined) return 'no token';
    return sameSecret(presented, opts.metricsToken) ? 'yes' : 'wrong token';
  }

  /** 401 as RFC 6750 has it (Prometheus shows the status); the log says why, never what was sent. */
  function refuseMetrics(res: ServerResponse, why: 'no token' | 'wrong token', path: string): void {
    if (refusedTokens++ % 100 === 0) log.warn({ path, why, refused: refusedTokens }, 'metrics request refused: no or wrong bearer token (TURNBRIDGE_METRICS_TOKEN)');
    res.setHeader('www-authenticate', why === 'wrong token' ? 'Bearer realm="turnbridge", error="invalid_token"' : 'Bearer realm="turnbridge"');
    sendJson(res, 401, { error: `${path} needs Authorization: Bearer <the value of TURNBRIDGE_METRICS_TOKEN> (Prometheus: authorization: { credentials_file: … })` });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    const m = findMount(path);
    if (!(m?.signed) && !hostAllowed(req.headers.host)) {
      const host = hostnameOf(req.headers.host);
      if (refusedHosts++ % 100 === 0) log.warn({ host, path, refused: refusedHosts }, 'request refused: Host not allowed (TURNBRIDGE_ALLOWED_HOSTS)');
      return sendJson(res, 421, { error: `Host "${host}" is not served here; add it to TURNBRIDGE_ALLOWED_HOSTS (allowed_hosts in turnbridge.yaml) if this bridge is reached by that name` });
    }
    if (path === '/healthz') return builtin(req, res, () => sendJson(res, 200, { status: 'ok' }));
    if (path === '/readyz') return builtin(req, res, () => readyz(res, operator(req) === 'yes'));
    if (path === '/metrics') {
      return builtin(req, res, async () => {
        const who = operator(req);
        if (who !== 'yes') return refuseMetrics(res, who, path);
        const text = opts.metrics ? await opts.metrics() : '';
        sendText(res, 200, text, 'text/plain; version=0.0.4; charset=utf-8');
      });
    }
    // Browsers ask for it on every page; the page carries its icon inline (no 404 in the console).
    if (path === '/favicon.ico') return builtin(req, res, () => { res.statusCode = 204; res.end(); });
    if (!m && path === '/') {
      return builtin(req, res, () => sendText(res, 404, 'turnbridge is running, without the local chat page: with Slack or Discord tokens set it is off.\n'
        + 'Serve it too with `turnbridge start --local` (or TURNBRIDGE_LOCAL=1, local: { enabled: true } in turnbridge.yaml).\n'
        + 'Health: /healthz, readiness: /readyz (docs/operations.md).\n', 'text/plain; charset=utf-8'));
    }
    if (!m) return sendJson(res, 404, { error: 'not found', path });
    const subpath = m.prefix === '/' ? path : path.slice(m.prefix.length) || '/';
    await m.handler(req, res, { url, subpath });
  }

  async function builtin(req: IncomingMessage, res: ServerResponse, fn: () => void | Promise<void>): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return sendJson(res, 405, { error: 'method not allowed' });
    }
    await fn();
  }

  /** `full`: the details too; otherwise the status code and `{status}` only (a metrics token is set and was not sent). */
  function readyz(res: ServerResponse, full: boolean): void {
    const all = statuses();
    const notReady = all.filter((p) => p.state !== 'ready');
    const code = draining || notReady.length > 0 ? 503 : 200;
    const status = code === 200 ? 'ready' : 'not ready';
    if (!full) return sendJson(res, code, { status });
    const extra: Record<string, unknown> = {};
    for (const [key, fn] of details) {
      try { extra[key] = fn(); } catch (err) { extra[key] = { error: (err as Error).message }; }
    }
    if (draining) return sendJson(res, 503, { status, reason: 'shutting down', platforms: all, ...extra });
    if (code === 200) return sendJson(res, 200, { status, platforms: all, ...extra });
    sendJson(res, 503, { status, notReady, platforms: all, ...extra });
  }

  function statuses(): Array<{ name: string } & Record<string, unknown>> {
    return sources.map((s) => {
      let st: PlatformStatus;
      try {
        st = s.status();
      } catch (err) {
        st = { state: 'degraded', reason: `status() threw: ${(err as Error).message}` };
      }
      return { name: s.name, ...st };
    });
  }

  function findMount(path: string): Mounted | undefined {
    let best: Mounted | undefined;
    for (const m of mounts) {
      const hit = m.prefix === '/' || path === m.prefix || path.startsWith(`${m.prefix}/`);
      if (hit && (!best || m.prefix.length > best.prefix.length)) best = m;
    }
    return best;
  }

  return {
    get url() { return boundUrl; },
    get port() { return boundPort; },
    mount(prefix, handler, mountOpts) {
      const p = prefix === '/' ? '/' : `/${prefix.replace(/^\/+|\/+$/g, '')}`;
      if (['/healthz', '/readyz', '/metrics'].includes(p)) throw new Error(`cannot mount over built-in route ${p}`);
      if (mounts.some((m) => m.prefix === p)) throw new Error(`a handler is already mounted at ${p}`);
      mounts.push({ prefix: p, handler, signed: mountOpts?.signed === true });
    },
    onClose(fn) { closeHooks.push(fn); },
    addReadiness(source) { sources.push(source); },
    addReadyDetail(key, fn) { details.set(key, fn); },
    setDraining() { draining = true; },
    listen() {
      return new Promise((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        server.once('error', onError);
        server.listen(opts.port, opts.host, () => {
          server.off('error', onError);
          const addr = server.address() as AddressInfo;
          boundPort = addr.port;
          const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
          boundUrl = `http://${host}:${addr.port}/`;
          log.info({ url: boundUrl }, 'http server listening');
          resolve(boundUrl);
        });
      });
    },
    close(graceMs = 2000) {
      draining = true;
      for (const fn of closeHooks.splice(0)) {
        try { fn(); } catch (err) { log.warn({ err }, 'http close hook failed'); }
      }
      return new Promise((resolve) => {
        if (!server.listening) return resolve();
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
