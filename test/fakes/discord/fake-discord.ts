/**
 * A loopback fake of Discord (REST + gateway + CDN) on 127.0.0.1, port 0, for the real discord.js
 * client. Tests drive it (a user DMs, mentions, clicks) and read what the bot did from `calls`
 * and `messages`.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FakeGateway, INTENTS, shardOf } from './gateway.js';
import {
  channelPayload, guildCreatePayload, makeWorld, memberPayload, messagePayload, ALL_PERMISSIONS,
  type FakeAttachment, type FakeChannel, type FakeMessage, type FakeComponent, type FakeUser, type World,
} from './payloads.js';
import { RateLimits, type BucketLimit } from './rate-limits.js';
import { HttpError, REACTIONS_BUCKET, handleRest, type RecordedCall, type UploadedPart } from './rest.js';
import { snowflake } from './snowflake.js';

export interface FakeDiscordOptions {
  token?: string;
  heartbeatIntervalMs?: number;
  allowMessageContent?: boolean;
  /**
   * GET /applications/@me `flags`. Default: GATEWAY_MESSAGE_CONTENT_LIMITED (1<<19, the portal
   * toggle) when allowMessageContent is not false, else 0: the two agree as on real Discord.
   */
  applicationFlags?: number;
  /** The bot's permissions in the guild (GET /users/@me/guilds), a decimal bit string. Default: all. */
  guildPermissions?: string;
  /** Buckets by route key; default: 5 per 5 s per channel for message create and for message edit. */
  limits?: Record<string, BucketLimit>;
  /** Interaction ack deadline (Discord: 3 s). */
  ackDeadlineMs?: number;
  /** The guild's Server Boost level (GUILD_CREATE premium_tier): its per-file upload limit. Default 0. */
  premiumTier?: 0 | 1 | 2 | 3;
  /** How long a signed CDN link serves its file (Discord: 24 h); advanceCdnClock() moves past it. */
  linkLifetimeMs?: number;
}

/**
 * Per-file upload limit by boost level. Level 0 and 1: the documented default, 10 MiB
 * (reference.mdx, Uploading Files, discord-api-docs c98d64b); 2 and 3: 50 and 100 MiB, the
 * levels' perks as Discord's Server Boosting FAQ lists them (the API docs name no numbers).
 */
export const UPLOAD_LIMITS: Record<0 | 1 | 2 | 3, number> = { 0: 10 * 1048576, 1: 10 * 1048576, 2: 50 * 1048576, 3: 100 * 1048576 };

export interface FakeInteraction {
  id: string;
  token: string;
  messageId: string;
  customId: string;
  user: FakeUser;
  createdAt: number;
  /** 3 = a component click, 5 = a modal submit. */
  type: 3 | 5;
  ack?: { type: number; at: number };
  /** Ephemeral and other answers: a type-4 callback's message, then follow-ups. */
  followUps: { content: string; flags: number }[];
  /** The modal a type-9 callback opened. */
  modal?: FakeModal;
}

export interface FakeModal {
  custom_id: string;
  title: string;
  components: Array<{ type: number; label?: string; component?: { type: number; custom_id: string; value?: string; max_length?: number } }>;
}

export class FakeDiscord extends EventEmitter {
  readonly token: string;
  readonly world: World = makeWorld();
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  readonly interactions = new Map<string, FakeInteraction>();
  readonly reactions = new Map<string, Set<string>>();
  readonly files = new Map<string, { data: Buffer; contentType: string }>();
  readonly calls: RecordedCall[] = [];
  readonly rateLimits: RateLimits;
  readonly gateway: FakeGateway;
  /** Users who do not accept DMs from server members: a bot message to their DM fails 403 50007, as on Discord. */
  readonly dmsClosed = new Set<string>();
  /** Permissions the bot lacks, per channel id ('send' | 'thread' | 'react' | 'attach': Attach Files). */
  readonly denied = new Map<string, Set<string>>();
  readonly applicationFlags: number;
  guildPermissions: string;
  readonly premiumTier: 0 | 1 | 2 | 3;
  private readonly server: Server;
  /** Every open socket (HTTP and upgraded gateway ones), so stop() can end them all. */
  private readonly sockets = new Set<Socket>();
  private readonly ackDeadlineMs: number;
  private readonly linkLifetimeMs: number;
  private readonly linkKey = randomBytes(16);
  /** How far the CDN's clock is ahead of the host's (advanceCdnClock). */
  private cdnSkewMs = 0;
  private port = 0;

  constructor(opts: FakeDiscordOptions = {}) {
    super();
    this.setMaxListeners(100);
    this.token = opts.token ?? 'fake-bot-token';
    this.ackDeadlineMs = opts.ackDeadlineMs ?? 3000;
    this.applicationFlags = opts.applicationFlags ?? (opts.allowMessageContent === false ? 0 : 1 << 19);
    this.guildPermissions = opts.guildPermissions ?? ALL_PERMISSIONS;
    this.premiumTier = opts.premiumTier ?? 0;
    this.linkLifetimeMs = opts.linkLifetimeMs ?? 24 * 3600_000;
    this.rateLimits = new RateLimits(opts.limits ?? {
      'POST /channels/:id/messages': { limit: 5, windowMs: 5000 },
      'PATCH /channels/:id/messages/:id': { limit: 5, windowMs: 5000 },
      // Discord answers reactions 1 per 250 ms per channel (its headers advertise 1 per 1 s:
      // discord/discord-api-docs#182); the fake advertises what it enforces.
      [REACTIONS_BUCKET]: { limit: 1, windowMs: 250 },
    });
    this.channels.set(this.world.general.id, this.world.general);
    this.gateway = new FakeGateway({
      token: this.token,
      heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 1000,
      allowMessageContent: opts.allowMessageContent ?? true,
      ready: (sessionId, resumeUrl, shard) => {
        const mine = shardOf(this.world.guild.id, shard[1]) === shard[0];
        return {
          ready: {
            v: 10, user: this.world.bot, guilds: mine ? [{ id: this.world.guild.id, unavailable: true }] : [], session_id: sessionId,
            resume_gateway_url: resumeUrl, shard, application: { id: this.world.bot.id, flags: 0 }, private_channels: [], relationships: [],
          },
          guildCreates: mine ? [guildCreatePayload(this.world, [...this.channels.values()].filter((c) => c.guild_id), this.premiumTier)] : [],
        };
      },
    });
    this.server = createServer((req, res) => { void handleRest(this, req, res); });
    this.server.on('upgrade', (req, socket, head) => this.gateway.handleUpgrade(req, socket, head));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.gateway.setBaseUrl(this.wsUrl);
    return this;
  }

  /** REST base for DISCORD_API_URL (discord.js appends /v10). */
  get apiUrl(): string { return `http://127.0.0.1:${this.port}/api`; }
  get wsUrl(): string { return `ws://127.0.0.1:${this.port}`; }
  get cdnUrl(): string { return `http://127.0.0.1:${this.port}`; }

  async stop(): Promise<void> {
    // Stop accepting first, then end every socket: one that opened between ending the connections
    // and close() (discord.js reconnecting or retrying while the rig closes), or an upgraded
    // gateway socket, which closeAllConnections() does not know, kept close() waiting for ever.
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.gateway.close();
    this.server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private readonly slowRoutes = new Map<string, { ms: number; times: number }>();

  /** The next `times` calls of `route` (e.g. 'PATCH /channels/:id/messages/:id') answer `ms` late. */
  slow(route: string, ms: number, times = 1): void {
    this.slowRoutes.set(route, { ms, times });
  }

  /** How late this call of `route` answers (0: at once); counts the call against slow(). */
  lateBy(route: string): number {
    const s = this.slowRoutes.get(route);
    if (!s || s.times <= 0) return 0;
    s.times--;
    return s.ms;
  }

  record(call: RecordedCall): void {
    this.calls.push(call);
    this.emit('call', call);
  }

  /** Resolves when `pred` holds, re-checked on every REST call and gateway event; rejects after `timeoutMs`. */
  waitFor<T>(pred: () => T | undefined | false, timeoutMs = 15_000, what = 'condition'): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const v = pred();
        if (v) { cleanup(); resolve(v); return true; }
        return false;
      };
      const timer = setTimeout(() => { cleanup(); reject(new Error(`fake discord: timed out waiting for ${what}`)); }, timeoutMs);
      const cleanup = (): void => { clearTimeout(timer); this.off('call', check); this.off('change', check); };
      if (check()) return;
      this.on('call', check);
      this.on('change', check);
    });
  }

  channel(id: string): FakeChannel {
    const ch = this.channels.get(id);
    if (!ch) throw new HttpError(404, 10003, 'Unknown Channel');
    return ch;
  }

  /** The per-file upload limit in a channel: its guild's boost level; DMs the default. */
  uploadLimit(channelId: string): number {
    const ch = this.channel(channelId);
    return ch.guild_id ? UPLOAD_LIMITS[this.premiumTier] : UPLOAD_LIMITS[0];
  }

  /** The bytes of a file the fake's CDN serves, by the attachment's url. */
  fileBytes(url: string): Buffer | undefined {
    return this.files.get(new URL(url).pathname)?.data;
  }

  /** The CDN's clock moves `ms` ahead: links whose `ex` it passes stop serving (POST /attachments/refresh-urls renews them). */
  advanceCdnClock(ms: number): void {
    this.cdnSkewMs += ms;
  }

  /**
   * A signed link to a CDN path, as Discord signs attachment URLs: `ex` (expiry) and `is` (issued)
   * are hex Unix seconds, `hm` a signature over the path and both (reference.md, Signed
   * Attachment CDN URLs).
   */
  private signLink(path: string): string {
    const now = Math.floor((Date.now() + this.cdnSkewMs) / 1000);
    const ex = Math.floor(now + this.linkLifetimeMs / 1000).toString(16);
    const is = now.toString(16);
    return `${this.cdnUrl}${path}?ex=${ex}&is=${is}&hm=${this.linkSignature(path, ex, is)}&`;
  }

  private linkSignature(path: string, ex: string, is: string): string {
    return createHmac('sha256', this.linkKey).update(`${path}\n${ex}\n${is}`).digest('hex');
  }

  /** The file a GET of the CDN serves: none for an unknown path, a forged signature or a link past its `ex`. */
  servedFile(url: URL): { data: Buffer; contentType: string } | undefined {
    const file = this.files.get(url.pathname);
    const ex = url.searchParams.get('ex') ?? '';
    const is = url.searchParams.get('is') ?? '';
    if (!file || url.searchParams.get('hm') !== this.linkSignature(url.pathname, ex, is)) return undefined;
    return parseInt(ex, 16) * 1000 > Date.now() + this.cdnSkewMs ? file : undefined;
  }

  /**
   * POST /attachments/refresh-urls: `attachment_urls` (1-50 strings) in, `refreshed_urls`
   * ({ original, refreshed }) out, a fresh link for each one of the fake's files; the query of
   * the original (expired or not) does not matter.
   */
  refreshLinks(urls: unknown): { refreshed_urls: Array<{ original: string; refreshed: string }> } {
    if (!Array.isArray(urls) || urls.length < 1 || urls.length > 50 || urls.some((u) => typeof u !== 'string')) {
      throw new HttpError(400, 50035, 'Invalid Form Body (attachment_urls)');
    }
    const refreshed_urls: Array<{ original: string; refreshed: string }> = [];
    for (const original of urls as string[]) {
      let path: string;
      try { path = new URL(original).pathname; } catch { continue; }
      if (this.files.has(path)) refreshed_urls.push({ original, refreshed: this.signLink(path) });
    }
    return { refreshed_urls };
  }

  checkPermission(channelId: string, what: 'send' | 'thread' | 'react' | 'attach'): void {
    const ch = this.channel(channelId);
    const denied = this.denied.get(ch.id) ?? (ch.parent_id ? this.denied.get(ch.parent_id) : undefined);
    if (denied?.has(what)) throw new HttpError(403, 50013, 'Missing Permissions');
  }

  /** Bot messages in a channel, oldest first. */
  botMessages(channelId: string): FakeMessage[] {
    return [...this.messages.values()].filter((m) => m.channel_id === channelId && m.author.id === this.world.bot.id);
  }

  // ---- what users do ------------------------------------------------------------------------

  /** Serve bytes on the fake CDN; returns the attachment object for a message. */
  addFile(channelId: string, filename: string, data: Buffer | string, contentType: string): FakeAttachment {
    const id = snowflake();
    const path = `/attachments/${channelId}/${id}/${encodeURIComponent(filename)}`;
    const buf = Buffer.from(data);
    this.files.set(path, { data: buf, contentType });
    const url = this.signLink(path);
    return { id, filename, content_type: contentType, size: buf.length, url, proxy_url: url };
  }

  /** A guild text channel; add it before the client connects (it is sent in GUILD_CREATE) or it is dispatched. */
  addTextChannel(name: string): FakeChannel {
    const ch: FakeChannel = { id: snowflake(), type: 0, name, guild_id: this.world.guild.id };
    this.channels.set(ch.id, ch);
    this.gateway.dispatch('CHANNEL_CREATE', channelPayload(ch));
    return ch;
  }

  /** POST /users/@me/channels: the DM channel with a user (the same one again if it exists). */
  openDm(recipientId: unknown): FakeChannel {
    const user = Object.values(this.world.users).find((u) => u.id === recipientId);
    if (!user) throw new HttpError(400, 50035, 'Invalid Form Body (recipient_id)');
    return this.dmChannel(user);
  }

  dmChannel(user: FakeUser): FakeChannel {
    for (const c of this.channels.values()) if (c.type === 1 && c.recipients?.[0]?.id === user.id) return c;
    const ch: FakeChannel = { id: snowflake(), type: 1, recipients: [user] };
    this.channels.set(ch.id, ch);
    return ch;
  }

  /** A user DMs the bot. */
  dm(user: FakeUser, content: string, attachments: FakeAttachment[] = []): FakeMessage {
    const ch = this.dmChannel(user);
    const msg = this.store({ channel_id: ch.id, author: user, content, attachments, mentions: [] });
    if (this.gateway.intents & INTENTS.DirectMessages) {
      this.gateway.dispatch('MESSAGE_CREATE', { ...messagePayload(msg), channel_type: 1 });
    }
    return msg;
  }

  /** A user writes in a guild channel or thread; `mention` puts `<@bot>` in front. */
  say(channelId: string, user: FakeUser, content: string, opts: { mention?: boolean; attachments?: FakeAttachment[] } = {}): FakeMessage {
    const ch = this.channel(channelId);
    const text = opts.mention ? `<@${this.world.bot.id}> ${content}` : content;
    const mentions = opts.mention ? [this.world.bot] : [];
    const msg = this.store({ channel_id: ch.id, guild_id: ch.guild_id, author: user, content: text, attachments: opts.attachments ?? [], mentions });
    const intents = this.gateway.intentsFor(ch.guild_id);
    const hasContent = (intents & INTENTS.MessageContent) || opts.mention || user.id === this.world.bot.id;
    const payload = { ...messagePayload(msg), channel_type: ch.type, member: memberPayload(user, this.world.memberRoles.get(user.id) ?? [], false) };
    if (!hasContent) Object.assign(payload, { content: '', attachments: [], embeds: [], components: [] });
    if (intents & INTENTS.GuildMessages) this.gateway.dispatch('MESSAGE_CREATE', payload);
    return msg;
  }

  /** A user clicks a button on a bot message. */
  click(messageId: string, customId: string, user: FakeUser): FakeInteraction {
    const msg = this.messages.get(messageId);
    if (!msg) throw new Error(`fake discord: no message ${messageId}`);
    const it: FakeInteraction = { id: snowflake(), token: `itoken-${snowflake()}`, type: 3, messageId, customId, user, createdAt: Date.now(), followUps: [] };
    this.interactions.set(it.token, it);
    this.dispatchInteraction(it, { custom_id: customId, component_type: 2 });
    return it;
  }

  /**
   * A user picks `values` in a string select menu (component type 3) of a bot message; each must
   * be one of its options, between its min_values and max_values (else the client would not send it).
   */
  select(messageId: string, customId: string, values: string[], user: FakeUser): FakeInteraction {
    const msg = this.messages.get(messageId);
    if (!msg) throw new Error(`fake discord: no message ${messageId}`);
    const menu: FakeComponent | undefined = msg.components.flatMap((r) => r.components).find((c) => c.custom_id === customId);
    if (!menu || menu.type !== 3) throw new Error(`fake discord: no select menu ${customId} on that message`);
    if (values.length < (menu.min_values ?? 1) || values.length > (menu.max_values ?? 1)) throw new Error(`fake discord: ${values.length} values outside ${menu.min_values}..${menu.max_values}`);
    for (const v of values) if (!(menu.options ?? []).some((o) => o.value === v)) throw new Error(`fake discord: the menu has no option ${v}`);
    const it: FakeInteraction = { id: snowflake(), token: `itoken-${snowflake()}`, type: 3, messageId, customId, user, createdAt: Date.now(), followUps: [] };
    this.interactions.set(it.token, it);
    this.dispatchInteraction(it, { custom_id: customId, component_type: 3, values });
    return it;
  }

  /**
   * A user submits a modal with `value` in its text input. `from` is the click that opened it
   * (its modal's custom_id is used), or a message and a custom_id (a forged or replayed submit).
   */
  submitModal(from: FakeInteraction | { messageId: string; customId: string }, user: FakeUser, value: string): FakeInteraction {
    const modal = 'token' in from ? from.modal : undefined;
    const customId = 'token' in from ? modal?.custom_id : from.customId;
    if (!customId) throw new Error('fake discord: that click opened no modal');
    const inputId = modal?.components[0]?.component?.custom_id ?? 'value';
    const it: FakeInteraction = { id: snowflake(), token: `itoken-${snowflake()}`, type: 5, messageId: from.messageId, customId, user, createdAt: Date.now(), followUps: [] };
    this.interactions.set(it.token, it);
    this.dispatchInteraction(it, { custom_id: customId, components: [{ type: 18, id: 1, component: { type: 4, id: 2, custom_id: inputId, value } }] });
    return it;
  }

  private dispatchInteraction(it: FakeInteraction, data: Record<string, unknown>): void {
    const msg = this.messages.get(it.messageId)!;
    const ch = this.channel(msg.channel_id);
    const user = it.user;
    const inGuild = ch.guild_id !== undefined;
    this.gateway.dispatch('INTERACTION_CREATE', {
      id: it.id, application_id: this.world.bot.id, type: it.type, token: it.token, version: 1,
      data,
      channel_id: ch.id, channel: channelPayload(ch), message: messagePayload(msg),
      ...(inGuild
        ? { guild_id: ch.guild_id, guild_locale: 'en-US', context: 0, member: { ...memberPayload(user, this.world.memberRoles.get(user.id) ?? []), permissions: ALL_PERMISSIONS } }
        : { user, context: 1 }),
      app_permissions: ALL_PERMISSIONS, locale: 'en-US', entitlements: [], authorizing_integration_owners: { 0: this.world.guild.id }, attachment_size_limit: 10485760,
    });
  }

  // ---- what the bot does (called by the REST routes) ----------------------------------------

  private store(m: Pick<FakeMessage, 'channel_id' | 'author' | 'content' | 'attachments' | 'mentions'> & { guild_id?: string; components?: FakeMessage['components'] }): FakeMessage {
    const msg: FakeMessage = {
      id: snowflake(), components: [], mention_roles: [], flags: 0, timestamp: new Date().toISOString(), edited_timestamp: null,
      history: [m.content], ...m,
    };
    this.messages.set(msg.id, msg);
    this.emit('change');
    return msg;
  }

  createBotMessage(channelId: string, body: any, files: UploadedPart[] = []): FakeMessage {
    const ch = this.channel(channelId);
    if (ch.type === 1 && ch.recipients?.some((u) => this.dmsClosed.has(u.id))) throw new HttpError(403, 50007, 'Cannot send messages to this user');
    if (!body?.content && !body?.components?.length && files.length === 0) throw new HttpError(400, 50006, 'Cannot send an empty message');
    // Discord keeps letters, digits, '.', '_' and '-' of a file name (others become '_').
    const attachments = files.map((f) => this.addFile(ch.id, f.filename.replace(/[^A-Za-z0-9._-]/g, '_'), f.data, f.contentType));
    // stored with its buttons, so a 'change' listener sees the message as posted
    const msg = this.store({ channel_id: ch.id, guild_id: ch.guild_id, author: this.world.bot, content: body?.content ?? '', attachments, mentions: [], components: body?.components ?? [] });
    this.gateway.dispatch('MESSAGE_CREATE', { ...messagePayload(msg), channel_type: ch.type });
    return msg;
  }

  editMessage(channelId: string, messageId: string, body: any): FakeMessage {
    const msg = this.messages.get(messageId);
    if (!msg || msg.channel_id !== channelId) throw new HttpError(404, 10008, 'Unknown Message');
    if (msg.author.id !== this.world.bot.id) throw new HttpError(403, 50005, 'Cannot edit a message authored by another user');
    this.applyEdit(msg, body);
    return msg;
  }

  private applyEdit(msg: FakeMessage, body: any): void {
    if (typeof body?.content === 'string') { msg.content = body.content; msg.history.push(body.content); }
    if (Array.isArray(body?.components)) msg.components = body.components;
    msg.edited_timestamp = new Date().toISOString();
    this.gateway.dispatch('MESSAGE_UPDATE', messagePayload(msg));
    this.emit('change');
  }

  startThread(channelId: string, messageId: string, body: any): FakeChannel {
    const parent = this.channel(channelId);
    if (this.channels.has(messageId)) throw new HttpError(400, 160004, 'A thread has already been created for this message');
    const thread: FakeChannel = { id: messageId, type: 11, name: String(body?.name ?? 'thread'), guild_id: parent.guild_id, parent_id: parent.id, owner_id: this.world.bot.id };
    this.channels.set(thread.id, thread);
    this.gateway.dispatch('THREAD_CREATE', { ...channelPayload(thread), newly_created: true });
    this.emit('change');
    return thread;
  }

  react(messageId: string, emoji: string, add: boolean): void {
    const set = this.reactions.get(messageId) ?? new Set<string>();
    if (add) set.add(emoji); else set.delete(emoji);
    this.reactions.set(messageId, set);
    this.emit('change');
  }

  interactionCallback(id: string, token: string, body: any): void {
    const it = this.interactions.get(token);
    if (!it || it.id !== id) throw new HttpError(404, 10062, 'Unknown interaction');
    if (it.ack) throw new HttpError(400, 40060, 'Interaction has already been acknowledged.');
    if (Date.now() - it.createdAt > this.ackDeadlineMs) throw new HttpError(404, 10062, 'Unknown interaction');
    const type = Number(body?.type);
    if (type === 9) {
      if (it.type !== 3) throw new HttpError(400, 50035, 'Invalid Form Body (a modal cannot answer a modal submit)');
      const m = body?.data as FakeModal | undefined;
      const comps = m?.components ?? [];
      if (!m || typeof m.custom_id !== 'string' || m.custom_id.length < 1 || m.custom_id.length > 100) throw new HttpError(400, 50035, 'Invalid Form Body (custom_id)');
      if (!m.title || m.title.length > 45 || comps.length < 1 || comps.length > 5) throw new HttpError(400, 50035, 'Invalid Form Body (modal)');
      for (const c of comps) {
        if (c.type !== 18 || !c.label || c.label.length > 45 || !c.component) throw new HttpError(400, 50035, 'Invalid Form Body (label)');
        if ((c.component.value?.length ?? 0) > 4000 || (c.component.max_length ?? 0) > 4000) throw new HttpError(400, 50035, 'Invalid Form Body (text input)');
      }
      it.modal = m;
    }
    if (type === 6 && it.type === 5 && !this.messages.has(it.messageId)) throw new HttpError(400, 50035, 'Invalid Form Body (no message to update)');
    it.ack = { type, at: Date.now() };
    if (type === 4) it.followUps.push({ content: String(body?.data?.content ?? ''), flags: Number(body?.data?.flags ?? 0) });
    if (it.ack.type === 7) this.applyEdit(this.messages.get(it.messageId)!, body?.data);
    this.emit('change');
  }

  editOriginal(token: string, body: any): FakeMessage {
    const it = this.interactions.get(token);
    if (!it?.ack) throw new HttpError(404, 10015, 'Unknown Webhook');
    const msg = this.messages.get(it.messageId)!;
    this.applyEdit(msg, body);
    return msg;
  }

  followUp(token: string, body: any): FakeMessage {
    const it = this.interactions.get(token);
    if (!it?.ack) throw new HttpError(404, 10015, 'Unknown Webhook');
    it.followUps.push({ content: String(body?.content ?? ''), flags: Number(body?.flags ?? 0) });
    const msg: FakeMessage = {
      id: snowflake(), channel_id: this.messages.get(it.messageId)!.channel_id, author: this.world.bot, content: String(body?.content ?? ''),
      components: [], attachments: [], mentions: [], mention_roles: [], flags: Number(body?.flags ?? 0),
      timestamp: new Date().toISOString(), edited_timestamp: null, history: [],
    };
    this.emit('change');
    return msg;
  }
}
