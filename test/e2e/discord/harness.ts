/**
 * Shared set-up for the Discord end-to-end tests: a fake Discord, a BridgeConfig, and the real
 * discord.js client through createDiscordPlatform (with the identify throttle switched off).
 */
import type { BridgeConfig } from '../../../src/config/types.js';
import { InboundStateDouble } from '../../fakes/inbound-state.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDiscordPlatform, parseDiscordConfig, type DiscordConfig, type DiscordPlatformOptions } from '../../../src/platforms/discord/index.js';
import type { ActionEvent, BridgeInbound, InboundMessage, Platform } from '../../../src/bridge/types.js';
import { createLogger, silentLogger, type Logger } from '../../../src/log.js';
import { FakeDiscord, type FakeDiscordOptions } from '../../fakes/discord/index.js';
import { openSecurity } from '../../fixtures/config-defaults.js';

export function testLogger(): Logger {
  return process.env.TB_TEST_LOG ? createLogger({ level: process.env.TB_TEST_LOG, pretty: false }) : silentLogger;
}

export function testConfig(dir: string, over: Partial<BridgeConfig> = {}): BridgeConfig {
  return {
    ...openSecurity(), defaultProfile: join(process.cwd(), 'profiles/echo/profile.yaml'),
    routes: [],
    approvers: [],
    queueDepth: 5,
    maxConcurrent: 8,
    permissionTimeoutSecs: 600,
    dataDir: dir,
    host: '127.0.0.1',
    port: 0,
    shutdownGraceSecs: 2,
    logLevel: 'silent',
    platforms: {},
    ...over,
  };
}

/** A bridge stand-in that records what the platform hands it. */
export class RecordingBridge extends InboundStateDouble implements BridgeInbound {
  readonly messages: InboundMessage[] = [];
  readonly actions: ActionEvent[] = [];
  private readonly waiters = new Set<() => void>();

  async handleMessage(msg: InboundMessage): Promise<void> {
    this.messages.push(msg);
    this.accepted(msg);
    this.poke();
  }

  async handleAction(ev: ActionEvent): Promise<void> {
    this.actions.push(ev);
    this.poke();
  }

  private poke(): void {
    for (const w of [...this.waiters]) w();
  }

  until<T>(pred: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.waiters.delete(check); reject(new Error('recording bridge: timed out')); }, timeoutMs);
      const check = (): void => {
        const v = pred();
        if (v) { clearTimeout(timer); this.waiters.delete(check); resolve(v); }
      };
      this.waiters.add(check);
      check();
    });
  }
}

export interface Rig {
  fake: FakeDiscord;
  platform: Platform;
  dir: string;
  config: BridgeConfig;
  close(): Promise<void>;
}

export interface RigOptions {
  fake?: FakeDiscordOptions;
  config?: Partial<BridgeConfig>;
  discord?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  platform?: Partial<DiscordPlatformOptions>;
  logger?: Logger;
}

/** The Discord settings of a rig on the fake: a `discord:` section and the variables, read as loadConfig reads them. */
export function discordSettings(fake: FakeDiscord, discord: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}, routes: BridgeConfig['routes'] = []): DiscordConfig {
  return parseDiscordConfig({ DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl, ...env }, discord, { routes });
}

/** A (not started) Discord platform on the fake: the same settings every rig uses (also for restarts). */
export function platformFor(fake: FakeDiscord, config: BridgeConfig, dir: string, opts: RigOptions = {}): Platform {
  return createDiscordPlatform({
    config,
    logger: opts.logger ?? testLogger(),
    clientOptions: { ws: { buildIdentifyThrottler: () => ({ waitForIdentify: async () => {} }) } },
    readyTimeoutMs: 10_000,
    attachmentDir: dir,
    ...opts.platform,
  });
}

/** Starts a fake and builds (but does not start) the platform. */
export async function makeRig(opts: RigOptions = {}): Promise<Rig> {
  const fake = await new FakeDiscord(opts.fake).start();
  const dir = await mkdtemp(join(tmpdir(), 'tb-discord-e2e-'));
  const routes = opts.config?.routes ?? [];
  const config = testConfig(dir, { ...opts.config, platforms: { discord: discordSettings(fake, { typing_interval_ms: 200, ...opts.discord }, opts.env, routes) } });
  const platform = platformFor(fake, config, dir, opts);
  return {
    fake, platform, dir, config,
    async close() {
      await platform.stop().catch(() => {});
      await fake.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
