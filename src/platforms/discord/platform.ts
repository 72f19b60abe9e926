/**
 * The Discord platform: one discord.js client (gateway + REST), its Surface, and the status the
 * health endpoint reports. Connection problems are logged with what to do and never thrown.
 */
import { Client, Events, GatewayIntentBits, IntentsBitField, Partials, type ClientOptions } from 'discord.js';
import type { BridgeInbound, Platform, PlatformFactoryOptions, PlatformStatus } from '../../bridge/types.js';
import { CustomIds } from './ids.js';
import { createMessageHandler } from './inbound.js';
import { createLiveLimitFilter } from './rate-limit-filter.js';
import { createInteractionHandler } from './interactions.js';
import { BOOST_UPLOAD_LIMITS, createDiscordSurface, DEFAULT_UPLOAD_LIMIT } from './surface.js';
import { restAgent } from './rest-agent.js';
import { refreshingFetch } from './cdn-links.js';
import { attachmentFetcher } from '../index.js';
import { platformSettings } from '../../config/platform-configs.js';
import { ENABLE_MESSAGE_CONTENT, decideMessageContent, logMessageContentMode, type MessageContentMode } from './message-content.js';

/** Test and embedding seams; main.ts passes none of these. */
export interface DiscordPlatformOptions extends PlatformFactoryOptions {
  /** Merged into the discord.js client options (e.g. ws.buildIdentifyThrottler in tests). */
  clientOptions?: Partial<ClientOptions>;
  /** start() resolves after the gateway is ready or this long (default 30 s), whichever is first. */
  readyTimeoutMs?: number;
  attachmentDir?: string;
  fetch?: typeof fetch;
}

/** Close codes discord.js does not reconnect after, with what to do. */
const FATAL_CLOSE: Record<number, { reason: string; hint: string }> = {
  4004: { reason: 'Discord rejected the token (close 4004)', hint: 'reset the token in the Developer Portal (Bot > Reset Token) and update DISCORD_TOKEN' },
  4013: { reason: 'invalid gateway intents (close 4013)', hint: 'this is a turnbridge bug; please report it' },
  4014: {
    reason: 'Discord refused a privileged intent (close 4014, Message Content)',
    hint: `${ENABLE_MESSAGE_CONTENT}; or set discord.read_unmentioned: auto (the default) to connect without it`,
  },
};

export function createDiscordPlatform(opts: DiscordPlatformOptions): Platform {
  const cfg = platformSettings(opts.config.platforms.discord, 'Discord', 'DISCORD_TOKEN');
  const logger = opts.logger.child({ platform: 'discord' });
  const baseIntents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages];
  const extra = opts.clientOptions ?? {};
  const limits = createLiveLimitFilter();
  const agent = restAgent();
  const client = new Client({
    ...extra,
    intents: baseIntents,
    ...(cfg.shards ? { shards: cfg.shards.ids, shardCount: cfg.shards.count } : {}),
    partials: [Partials.Channel],
    rest: { ...(cfg.apiUrl ? { api: cfg.apiUrl } : {}), agent: agent as never, ...extra.rest, rejectOnRateLimit: (data) => limits.shouldReject(data) },
  });
  const ids = new CustomIds();
  const surface = createDiscordSurface({
    rest: client.rest, logger, ids, reactions: cfg.reactions, typingIntervalMs: cfg.typingIntervalMs,
    // The server's boost level sets its upload limit; DMs (no guild) have the default.
    uploadLimit: (channelId) => {
      const channel = client.channels.cache.get(channelId);
      const tier = channel && 'guild' in channel && channel.guild ? channel.guild.premiumTier : 0;
      return BOOST_UPLOAD_LIMITS[tier] ?? DEFAULT_UPLOAD_LIMIT;
    },
    selfId: () => client.user?.id,
  });
  // CDN URLs are signed: no token goes with them, for new messages and for turns queued before a
  // restart; one that expired is renewed through the REST client first (cdn-links.ts).
  const download = attachmentFetcher({
    dir: opts.attachmentDir ?? cfg.attachmentsDir, maxBytes: cfg.maxAttachmentBytes, maxCount: cfg.maxAttachments, keep: cfg.keepAttachments, logger,
    fetch: refreshingFetch({ rest: client.rest, logger, ...(opts.fetch ? { fetch: opts.fetch } : {}) }),
  });
  surface.fetchAttachments = download;
  let status: PlatformStatus = { state: 'stopped' };
  let fatal = false;
  let content: MessageContentMode = { kind: 'off', why: 'unknown' };

  function degrade(reason: string, hint?: string): void {
    status = { state: 'degraded', reason, ...(hint ? { hint } : {}) };
    logger.error({ reason, hint }, `discord: ${reason}${hint ? `: ${hint}` : ''}`);
  }

  client.on(Events.ShardDisconnect, (event, shardId) => {
    const known = FATAL_CLOSE[event.code];
    if (known) {
      fatal = true;
      degrade(known.reason, known.hint);
    } else if (status.state !== 'stopped') {
      logger.warn({ code: event.code, shardId }, 'discord: gateway disconnected');
    }
  });
  client.on(Events.ShardReconnecting, (shardId) => {
    if (status.state === 'stopped') return;
    logger.info({ shardId }, 'discord: reconnecting to the gateway');
    if (status.state === 'ready') status = { state: 'degraded', reason: 'reconnecting to the Discord gateway' };
  });
  client.on(Events.ShardResume, (shardId, replayed) => {
    logger.info({ shardId, replayed }, 'discord: gateway session resumed');
    if (!fatal) status = { state: 'ready' };
  });
  client.on(Events.ShardReady, (shardId) => {
    if (!fatal && status.state !== 'stopped') status = { state: 'ready' };
    logger.debug({ shardId }, 'discord: shard ready');
  });
  client.on(Events.ShardError, (err, shardId) => logger.warn({ err: err.message, shardId }, 'discord: gateway error'));
  client.on(Events.Error, (err) => logger.error({ err: err.message }, 'discord: client error'));
  client.on(Events.Warn, (message) => logger.warn({ message }, 'discord: warning'));
  client.on(Events.Debug, (message) => logger.trace({ message }, 'discord: debug'));
  client.rest.on('response', (request, response) => limits.onResponse(request, response));
  client.rest.on('rateLimited', (data) => logger.debug({ route: data.route, retryAfter: data.retryAfter, global: data.global }, 'discord: rate limited'));

  return {
    name: 'discord',
    surface,
    status: () => status,

    async start(bridge: BridgeInbound): Promise<void> {
      status = { state: 'starting' };
      fatal = false;
      client.rest.setToken(cfg.token);
      content = await decideMessageContent(cfg.readUnmentioned, client.rest);
      logMessageContentMode(content, logger);
      // discord.js reads options.intents when the gateway connects (login), not at construction.
      client.options.intents = new IntentsBitField(content.kind === 'on' ? [...baseIntents, GatewayIntentBits.MessageContent] : baseIntents);
      const onMessage = createMessageHandler({
        client, cfg, logger, download, messageContent: () => content.kind === 'on',
      }, bridge);
      const onInteraction = createInteractionHandler(ids, logger, bridge);
      client.on(Events.MessageCreate, (msg) => {
        onMessage(msg).catch((e: unknown) => logger.error({ err: (e as Error)?.message }, 'discord: message handling failed'));
      });
      client.on(Events.InteractionCreate, (i) => {
        onInteraction(i).catch((e: unknown) => logger.error({ err: (e as Error)?.message }, 'discord: interaction handling failed'));
      });
      const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
      const login = client.login(cfg.token).then(() => ready).then(() => {
        if (!fatal) status = { state: 'ready' };
        logger.info({ user: client.user?.tag, intents: content.kind === 'on' ? 'with Message Content' : 'without Message Content' }, 'discord: connected');
      }, (e: unknown) => {
        if (fatal) return;
        const message = (e as Error)?.message ?? String(e);
        if (/token/i.test(message)) {
          degrade('Discord rejected the token', 'check DISCORD_TOKEN: copy it again from Bot > Reset Token in the Developer Portal');
        } else if (/disallowed intents/i.test(message)) {
          degrade(FATAL_CLOSE[4014]!.reason, FATAL_CLOSE[4014]!.hint);
        } else {
          degrade(`cannot reach Discord: ${message}`, cfg.apiUrl ? `check DISCORD_API_URL (${cfg.apiUrl})` : 'check the network or proxy to discord.com');
        }
      });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          if (status.state === 'starting') degrade('the Discord gateway is not ready yet; still trying', 'see the log lines above');
          resolve();
        }, opts.readyTimeoutMs ?? 30_000);
        timer.unref?.();
      });
      await Promise.race([login, timeout]);
      clearTimeout(timer);
    },

    async stop(): Promise<void> {
      status = { state: 'stopped' };
      surface.close();
      await client.destroy();
      await agent.close().catch(() => {});
      logger.info('discord: stopped');
    },
  };
}
