import { randomBytes } from 'node:crypto';
import type { BridgeInbound, Platform, PlatformFactoryOptions, PlatformStatus } from '../../bridge/index.js';
import { isLoopbackBind } from '../../http/index.js';
import type { HttpMount } from '../../http/index.js';
import { LOCAL_DEFAULTS, type LocalConfig } from './local-config.js';
import { LocalFiles } from './local-files.js';
import { LocalHub } from './local-hub.js';
import { createLocalRoutes } from './local-routes.js';
import { createLocalSurface } from './local-surface.js';

export interface LocalPlatformOptions extends PlatformFactoryOptions {
  /** The bridge's HTTP server: the page and its API are mounted here (same host and port). */
  http: HttpMount;
  now?: () => number;
  /** SSE heartbeat interval (default 15 s). */
  heartbeatMs?: number;
}

export interface LocalPlatform extends Platform {
  readonly config: LocalConfig;
  /** The page state, for tests and diagnostics. */
  readonly hub: LocalHub;
  /** The token the page asks for (off loopback: TURNBRIDGE_LOCAL_TOKEN, else generated); undefined on loopback. */
  readonly token?: string;
}

/**
 * The platform with no credentials: a chat page served by the bridge's own HTTP server.
 * Each browser tab is one conversation (space "local", channel = the tab's id).
 */
export function createLocalPlatform(opts: LocalPlatformOptions): LocalPlatform {
  const config = opts.config.platforms.local ?? LOCAL_DEFAULTS;
  const logger = opts.logger.child({ platform: 'local' });
  const hub = new LocalHub({ heartbeatMs: opts.heartbeatMs });
  const files = new LocalFiles();
  const surface = createLocalSurface({ hub, config, files, now: opts.now });
  let bridge: BridgeInbound | undefined;
  let state: PlatformStatus = { state: 'starting' };

  // Off loopback anyone on the network reaches the page: it asks for a token (set, or made here).
  const token = opts.config.localToken ?? (isLoopbackBind(opts.config.host) ? undefined : randomBytes(18).toString('base64url'));
  opts.http.mount('/', createLocalRoutes({ hub, files, config, logger, bridge: () => bridge, token, now: opts.now }));
  opts.http.onClose(() => hub.closeAll());

  return {
    name: 'local',
    surface,
    config,
    hub,
    ...(token ? { token } : {}),
    async start(b) {
      bridge = b;
      state = { state: 'ready' };
      logger.info({ maxTextChars: config.maxTextChars, editsPerMinute: config.editsPerMinute }, 'local page ready');
    },
    async stop() {
      // Stop taking messages and clicks; open pages keep their stream so they still see
      // replies being finalized while the bridge shuts down. The HTTP server ends the streams.
      bridge = undefined;
      state = { state: 'stopped' };
    },
    status: () => state,
  };
}
