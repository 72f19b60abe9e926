/**
 * createSlackPlatform: the Bolt app (Socket Mode by default, HTTP receiver when only a signing
 * secret is given), connected in the background so that a bad token or an unreachable Slack
 * never crashes start-up: status() says what is wrong and what to do, and connecting is retried
 * with back-off. Reconnects are logged.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, type Logger as BoltLogger, LogLevel, SocketModeReceiver, webApi } from '@slack/bolt';
import type { BridgeInbound, Platform, PlatformFactoryOptions, PlatformStatus } from '../../bridge/types.js';
import type { HttpMount } from '../../http/index.js';
import type { Logger } from '../../log.js';
import { checkSlackRouteOptions, type SlackConfig } from './config.js';
import { platformSettings } from '../../config/platform-configs.js';
import { createListenerState, registerSlackListeners } from './events.js';
import { slackDownloads } from './files.js';
import { dmSuggestedPrompts } from './agent-events.js';
import { createSlackSurface, namedUserGroups, type SlackSurface } from './surface.js';
import { slackErrorCode } from './web-api.js';

export interface SlackPlatform extends Platform {
  readonly name: 'slack';
  readonly surface: SlackSurface;
  readonly config: Readonly<Omit<SlackConfig, 'botToken' | 'appToken' | 'signingSecret'>>;
  /** HTTP mode: where the receiver listens once started. */
  httpAddress(): { host: string; port: number } | undefined;
  /** Resolves when status() is next 'ready' (or at once if it is). Tests and `doctor`. */
  whenReady(): Promise<void>;
}

type Phase = 'auth.test' | 'connect';

/**
 * The connection to Slack:
 * - idle: created, not started;
 * - connecting: `app` is being initialised and started (`attempt`: failures before it);
 * - connected: events flow (HTTP mode: `server` listening on its own port, or `receiver` answering
 *   the shared server's /slack/events);
 * - reconnecting: the Socket Mode connection of `app` dropped; `retry` is the next try's timer;
 * - retrying: connecting failed; `retry` builds a new app after a back-off;
 * - stopped: stop() was called; nothing connects again until start().
 */
type Link =
  | { kind: 'idle' }
  | { kind: 'connecting'; app: App; attempt: number }
  | { kind: 'connected'; app: App; server?: Server; receiver?: HTTPReceiver }
  | { kind: 'reconnecting'; app: App; retry?: NodeJS.Timeout }
  | { kind: 'retrying'; attempt: number; retry: NodeJS.Timeout }
  | { kind: 'stopped' };

/** HTTP mode's own port when there is no shared server to mount on and SLACK_HTTP_PORT is unset. */
const DEFAULT_SLACK_HTTP_PORT = 3001;

export interface SlackPlatformOptions extends PlatformFactoryOptions {
  /**
   * The bridge's one HTTP server. In HTTP mode without SLACK_HTTP_PORT, Slack's events and
   * interactivity route (POST /slack/events) is mounted there.
   */
  http?: HttpMount;
}

/** How long start() waits for the first connection attempt before returning (it goes on in the background). */
const START_WAIT_MS = 15_000;

const TOKEN_ERRORS = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'not_allowed_token_type', 'missing_scope']);

/** What went wrong and what to do, in words an operator can act on. */
export function describeConnectFailure(e: unknown, phase: Phase, cfg: SlackConfig): { reason: string; hint: string } {
  const code = slackErrorCode(e);
  const err = e as { code?: string; statusCode?: number; message?: string };
  if (code && TOKEN_ERRORS.has(code)) {
    if (phase === 'auth.test') {
      return { reason: `Slack rejected SLACK_BOT_TOKEN (${code})`, hint: 'copy the Bot User OAuth Token (xoxb-) again from OAuth & Permissions; reinstall the app if you changed scopes' };
    }
    return { reason: `Slack rejected SLACK_APP_TOKEN (${code})`, hint: 'create an App-Level Token with the connections:write scope (Basic Information -> App-Level Tokens) and enable Socket Mode' };
  }
  if (code) return { reason: `Slack answered ${code} during ${phase}`, hint: 'see docs/slack.md, troubleshooting' };
  if (err?.code === 'slack_webapi_http_error') return { reason: `Slack answered HTTP ${err.statusCode} during ${phase}`, hint: 'Slack may be having trouble; retrying in the background' };
  if (err?.code === 'slack_webapi_request_error' || err?.code === 'slack_webapi_rate_limited_error') {
    return { reason: `cannot reach Slack at ${cfg.apiUrl} (${err.message ?? 'request failed'})`, hint: 'check the network, proxy settings and SLACK_API_URL; retrying in the background' };
  }
  return { reason: `Slack ${phase} failed: ${err?.message ?? String(e)}`, hint: 'retrying in the background; see docs/slack.md, troubleshooting' };
}

export function createSlackPlatform(opts: SlackPlatformOptions): SlackPlatform {
  const cfg = platformSettings(opts.config.platforms.slack, 'Slack', 'SLACK_BOT_TOKEN');
  // User groups named in the access, approver and route lists: membership is looked up for these
  // only, for messages, clicks, forms and Stop alike.
  const named = [...(opts.config.access?.allowUsers ?? []), ...(opts.config.access?.admins ?? []), ...opts.config.approvers];
  const userGroups = namedUserGroups(named, [...(opts.config.routes ?? []), ...(opts.config.dm ? [opts.config.dm] : [])]);
  const logger = opts.logger.child({ platform: 'slack' });
  const boltLogger = boltLoggerFrom(logger);

  const clientOptions = (): webApi.WebClientOptions => ({
    slackApiUrl: cfg.apiUrl,
    // Explicit: Socket Mode otherwise gives its listener clients 100 retries.
    retryConfig: { retries: cfg.apiRetries, factor: 2, minTimeout: 250, maxTimeout: 2_000, randomize: true },
    // A 429 is thrown at once; the delivery limiter owns pacing.
    rejectRateLimitedCalls: true,
    timeout: cfg.apiTimeoutMs,
    logger: boltLoggerFrom(logger, 'web-api'),
  });
  const client = new webApi.WebClient(cfg.botToken, clientOptions());
  const routes = { routes: opts.config.routes ?? [], ...(opts.config.dm ? { dm: opts.config.dm } : {}) };
  checkSlackRouteOptions({ ...routes, file: opts.config.file });
  const surface = createSlackSurface({ client, config: cfg, logger, routes, userGroups });
  // A turn queued before a restart gets its files again: same host checks, token and limits.
  surface.fetchAttachments = slackDownloads(cfg, logger).refetch;
  const listenerState = createListenerState();

  let status: PlatformStatus = { state: 'starting' };
  let bridge: BridgeInbound | undefined;
  /** Where the connection is, as ONE value; every timer and app lives in the state that owns it. */
  let link: Link = { kind: 'idle' };
  const useMount = cfg.mode === 'http' && cfg.httpPort === undefined && opts.http !== undefined;
  let readyWaiters: Array<() => void> = [];

  function setStatus(s: PlatformStatus): void {
    status = s;
    if (s.state === 'ready') {
      const w = readyWaiters;
      readyWaiters = [];
      for (const f of w) f();
    }
  }

  const socketReceivers = new WeakMap<App, SocketModeReceiver>();
  const httpReceivers = new WeakMap<App, HTTPReceiver>();

  /**
   * Stop an app. Bolt's socket client can leave its 30 s close-handshake timer (and the socket)
   * behind when the peer goes away mid-close, which holds the process open: finish the cleanup.
   */
  async function stopApp(a: App): Promise<void> {
    await a.stop().catch((e: unknown) => logger.debug({ err: (e as Error)?.message }, 'slack app stop failed'));
    const sws = (socketReceivers.get(a)?.client as unknown as { websocket?: { websocket?: unknown; cleanup?: () => void } } | undefined)?.websocket;
    if (sws?.websocket) sws.cleanup?.();
  }

  function buildApp(): App {
    const receiver = cfg.mode === 'socket'
      ? new SocketModeReceiver({
        appToken: cfg.appToken!,
        logger: boltLogger,
        clientPingTimeout: cfg.clientPingTimeoutMs,
        autoReconnectEnabled: false,
        // A custom receiver ignores App.clientOptions: give it the URL and retry policy again.
        installerOptions: { clientOptions: clientOptions() },
      })
      : new HTTPReceiver({ signingSecret: cfg.signingSecret!, endpoints: '/slack/events', logger: boltLogger });
    const a = new App({
      token: cfg.botToken,
      receiver,
      deferInitialization: true,
      ignoreSelf: true,
      logger: boltLogger,
      logLevel: LogLevel.WARN,
      clientOptions: clientOptions(),
    });
    registerSlackListeners(a, { config: cfg, logger, client, bridge: () => bridge, groupsOf: surface.groupsOf, sessions: surface.sessions,
      suggestedPrompts: (team, channel) => dmSuggestedPrompts(routes, team, channel) }, listenerState);
    a.error(async (err) => {
      logger.error({ err: err?.message ?? String(err), code: (err as { code?: string })?.code }, 'slack listener error');
    });
    if (receiver instanceof SocketModeReceiver) {
      socketReceivers.set(a, receiver);
      watchSocket(a, receiver);
    } else {
      httpReceivers.set(a, receiver);
    }
    return a;
  }

  /**
   * Bolt's own reconnect loop is off: when apps.connections.open fails during one of its
   * reconnects, the rejection escapes unhandled and ends the process. Reconnecting here keeps
   * the failure ours: logged, shown in status(), retried with back-off.
   */
  function watchSocket(a: App, receiver: SocketModeReceiver): void {
    receiver.client.on('disconnected', () => {
      if (link.kind !== 'connected' || link.app !== a) return;
      link = { kind: 'reconnecting', app: a };
      logger.warn('slack socket mode connection closed; reconnecting');
      setStatus({ state: 'degraded', reason: 'reconnecting to Slack (Socket Mode)', hint: 'Slack redelivers events after the reconnect; button clicks in the gap fail' });
      void reconnectSocket(a, receiver, 0);
    });
  }

  const reconnecting = (a: App): boolean => link.kind === 'reconnecting' && link.app === a;

  async function reconnectSocket(a: App, receiver: SocketModeReceiver, n: number): Promise<void> {
    if (!reconnecting(a)) return;
    try {
      await receiver.client.start();
      if (!reconnecting(a)) return;
      link = { kind: 'connected', app: a };
      setStatus({ state: 'ready' });
      logger.info({ attempts: n + 1 }, 'slack socket mode reconnected');
    } catch (e) {
      if (!reconnecting(a)) return;
      const { reason, hint } = describeConnectFailure(e, 'connect', cfg);
      const delay = Math.min(cfg.reconnectMaxMs, cfg.reconnectBaseMs * 2 ** n);
      setStatus({ state: 'degraded', reason, hint });
      logger.error({ reason, hint, retryInMs: delay }, 'slack socket mode reconnect failed');
      const retry = setTimeout(() => void reconnectSocket(a, receiver, n + 1), delay);
      retry.unref?.();
      link = { kind: 'reconnecting', app: a, retry };
    }
  }

  async function connectOnce(): Promise<void> {
    if (link.kind === 'stopped') return;
    const attempt = link.kind === 'retrying' ? link.attempt : 0;
    const a = buildApp();
    link = { kind: 'connecting', app: a, attempt };
    const connecting = (): boolean => link.kind === 'connecting' && link.app === a;
    let phase: Phase = 'auth.test';
    try {
      await a.init();
      phase = 'connect';
      let server: Server | undefined;
      let receiver: HTTPReceiver | undefined;
      if (cfg.mode === 'socket') {
        await a.start();
      } else if (useMount) {
        receiver = httpReceivers.get(a);
        logger.info('slack HTTP receiver mounted on the bridge server at /slack/events');
      } else {
        server = await a.start({ port: cfg.httpPort ?? DEFAULT_SLACK_HTTP_PORT, host: cfg.httpHost }) as Server;
        const addr = server.address() as AddressInfo;
        logger.info({ host: cfg.httpHost, port: addr.port }, 'slack HTTP receiver listening on /slack/events');
      }
      if (!connecting()) return; // stopped meanwhile: stop() stops the app
      link = { kind: 'connected', app: a, ...(server ? { server } : {}), ...(receiver ? { receiver } : {}) };
      // Whether the app is declared an agent shows in the token's scopes: asked once, off the turn path.
      if (surface.sessions.state.kind === 'unknown') {
        void client.auth.test().then((r) => surface.sessions.fromScopes(r.response_metadata?.scopes), (e: unknown) => logger.debug({ err: (e as Error)?.message }, 'slack auth.test for the token\'s scopes failed'));
      }
      setStatus({ state: 'ready' });
      logger.info({ mode: cfg.mode }, 'slack connected');
    } catch (e) {
      await stopApp(a);
      if (!connecting()) return;
      const { reason, hint } = describeConnectFailure(e, phase, cfg);
      const delay = Math.min(cfg.reconnectMaxMs, cfg.reconnectBaseMs * 2 ** attempt);
      setStatus({ state: 'degraded', reason, hint });
      logger.error({ reason, hint, retryInMs: delay, attempt: attempt + 1 }, 'slack not connected');
      const retry = setTimeout(() => void connectOnce(), delay);
      retry.unref?.();
      link = { kind: 'retrying', attempt: attempt + 1, retry };
    }
  }

  // HTTP mode without a port of its own: Slack's events and clicks come through the bridge's
  // server, answered 503 until connected (and once stopped).
  if (useMount) {
    opts.http!.mount('/slack/events', (req, res) => {
      if (link.kind !== 'connected' || !link.receiver) {
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('slack is not connected yet\n');
        return;
      }
      link.receiver.requestListener(req, res);
    }, { signed: true });
  }

  return {
    name: 'slack',
    surface,
    config: (({ botToken: _b, appToken: _a, signingSecret: _s, ...rest }) => rest)(cfg),
    status: () => status,
    httpAddress() {
      const addr = link.kind === 'connected' ? link.server?.address() as AddressInfo | null | undefined : undefined;
      return addr ? { host: cfg.httpHost, port: addr.port } : undefined;
    },
    whenReady() {
      if (status.state === 'ready') return Promise.resolve();
      return new Promise<void>((resolve) => readyWaiters.push(resolve));
    },
    async start(b: BridgeInbound): Promise<void> {
      bridge = b;
      link = { kind: 'idle' };
      setStatus({ state: 'starting' });
      logger.info({ mode: cfg.mode, apiUrl: cfg.apiUrl }, 'slack starting');
      // The first attempt usually settles quickly; a socket that neither opens nor fails must not hold start-up.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        connectOnce(),
        new Promise<void>((r) => { timer = setTimeout(r, START_WAIT_MS); timer.unref?.(); }),
      ]);
      clearTimeout(timer);
    },
    async stop(): Promise<void> {
      const was = link;
      link = { kind: 'stopped' };
      if ((was.kind === 'reconnecting' || was.kind === 'retrying') && was.retry) clearTimeout(was.retry);
      if ('app' in was) await stopApp(was.app);
      surface.sessions.close();
      setStatus({ state: 'stopped' });
    },
  };
}

/*
 * Bolt / Socket Mode / Web API log lines -> pino. Bolt's debug output carries whole payloads
 * (message bodies, envelope tokens), so it goes to trace, below our own debug.
 */
/** Slack tokens and `"token":"…"` fields (Socket Mode payloads carry a verification token). */
export function scrubSecrets(s: string): string {
  return s
    .replace(/\b(xox[abprs]|xapp|xoxe(?:\.xox[bp])?)-[A-Za-z0-9-]+/g, '$1-[redacted]')
    .replace(/("token"\s*:\s*")[^"]*(")/g, '$1[redacted]$2');
}

function join(msg: unknown[]): string {
  return scrubSecrets(msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' '));
}

/**
 * One line for a warning Slack's libraries repeat: a failing request is logged by the Web API
 * client and again by Bolt and Socket Mode, and again on every retry ("http request failed fetch
 * failed" three times a retry). The same text within `windowMs` is counted, not logged; the next
 * line that gets through says how many were held back. Shared by every Slack logger of one pino logger.
 */
interface RepeatGate { pass(text: string): number | false }
const gates = new WeakMap<Logger, RepeatGate>();

export function repeatGate(now: () => number = Date.now, windowMs = 60_000): RepeatGate {
  const seen = new Map<string, { at: number; held: number }>();
  return {
    pass(text) {
      const t = now();
      const last = seen.get(text);
      if (last && t - last.at < windowMs) {
        last.held++;
        return false;
      }
      if (seen.size > 100) seen.clear();
      seen.set(text, { at: t, held: 0 });
      return last?.held ?? 0;
    },
  };
}

/**
 * Web API warnings the bridge reports itself, once, with what to do (sessions.ts): the Web API
 * client logs `response_metadata.warnings` on every call, which would say it on every turn.
 */
const REPORTED_ELSEWHERE = ['missing_agent_session_stopped_event_subscription'];

export function boltLoggerFrom(logger: Logger, name = 'bolt', gate?: RepeatGate): BoltLogger {
  const child = logger.child({ component: name });
  let shared = gate ?? gates.get(logger);
  if (!shared) gates.set(logger, shared = repeatGate());
  const once = (write: (obj: object, text: string) => void, m: unknown[]) => {
    const text = join(m);
    const held = shared!.pass(text);
    if (held !== false) write(held > 0 ? { repeatedBefore: held } : {}, text);
  };
  let level: LogLevel = LogLevel.WARN;
  const order = [LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARN, LogLevel.ERROR];
  const on = (l: LogLevel): boolean => order.indexOf(l) >= order.indexOf(level);
  return {
    debug: (...m: unknown[]) => { if (on(LogLevel.DEBUG)) child.trace(join(m)); },
    info: (...m: unknown[]) => { if (on(LogLevel.INFO)) child.debug(join(m)); },
    warn: (...m: unknown[]) => {
      if (!on(LogLevel.WARN)) return;
      if (typeof m[0] === 'string' && REPORTED_ELSEWHERE.includes(m[0])) child.debug(join(m));
      else once((o, t) => child.warn(o, t), m);
    },
    error: (...m: unknown[]) => { if (on(LogLevel.ERROR)) once((o, t) => child.error(o, t), m); },
    setLevel: (l: LogLevel) => { level = l; },
    getLevel: () => level,
    setName: () => {},
  };
}
