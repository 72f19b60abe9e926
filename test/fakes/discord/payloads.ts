/**
 * The fake's world (bot, users, one guild with roles and a text channel) and the JSON shapes
 * discord.js needs to emit events (see shared/platforms/discord.md §2.2).
 */
import { snowflake } from './snowflake.js';

export interface FakeUser { id: string; username: string; global_name: string | null; discriminator: '0'; avatar: null; bot?: boolean }
export interface FakeRole { id: string; name: string }
export interface FakeChannel {
  id: string;
  /** 0 text, 1 DM, 11 public thread */
  type: number;
  name?: string;
  guild_id?: string;
  parent_id?: string;
  owner_id?: string;
  recipients?: FakeUser[];
}
export interface FakeAttachment { id: string; filename: string; content_type?: string; size: number; url: string; proxy_url: string }
/** A button (type 2: style, label) or a string select menu (type 3, alone in its row: options, placeholder, min / max values). */
export interface FakeComponent {
  type: number;
  style?: number;
  label?: string;
  custom_id?: string;
  placeholder?: string;
  min_values?: number;
  max_values?: number;
  options?: Array<{ label: string; value: string; description?: string }>;
}
export interface FakeComponentRow { type: 1; components: FakeComponent[] }
export interface FakeMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: FakeUser;
  content: string;
  components: FakeComponentRow[];
  attachments: FakeAttachment[];
  mentions: FakeUser[];
  mention_roles: string[];
  flags: number;
  timestamp: string;
  edited_timestamp: string | null;
  /** Every content the message has had, in order (fake bookkeeping, not sent). */
  history: string[];
}

export function makeUser(username: string, bot = false): FakeUser {
  return { id: snowflake(), username, global_name: bot ? null : username[0]!.toUpperCase() + username.slice(1), discriminator: '0', avatar: null, ...(bot ? { bot: true } : {}) };
}

export const ALL_PERMISSIONS = '2251799813685247';

export function memberPayload(user: FakeUser, roles: string[], withUser = true): Record<string, unknown> {
  return {
    ...(withUser ? { user } : {}),
    roles, nick: null, avatar: null, joined_at: new Date(0).toISOString(), deaf: false, mute: false, flags: 0, pending: false,
  };
}

export function channelPayload(ch: FakeChannel): Record<string, unknown> {
  const base: Record<string, unknown> = { id: ch.id, type: ch.type, last_message_id: null, flags: 0 };
  if (ch.type === 1) return { ...base, recipients: ch.recipients ?? [] };
  const out: Record<string, unknown> = { ...base, guild_id: ch.guild_id, name: ch.name, position: 0, permission_overwrites: [], nsfw: false, parent_id: ch.parent_id ?? null };
  if (ch.type === 11) {
    Object.assign(out, {
      owner_id: ch.owner_id, message_count: 0, member_count: 1, rate_limit_per_user: 0,
      thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false },
    });
  }
  return out;
}

export function messagePayload(m: FakeMessage): Record<string, unknown> {
  return {
    id: m.id, type: 0, channel_id: m.channel_id, ...(m.guild_id ? { guild_id: m.guild_id } : {}),
    author: m.author, content: m.content, timestamp: m.timestamp, edited_timestamp: m.edited_timestamp,
    tts: false, mention_everyone: false, mentions: m.mentions, mention_roles: m.mention_roles, attachments: m.attachments,
    embeds: [], pinned: false, components: m.components, flags: m.flags,
  };
}

export interface World {
  bot: FakeUser;
  users: Record<string, FakeUser>;
  guild: { id: string; name: string; roles: FakeRole[] };
  /** Role ids per user id in the guild. */
  memberRoles: Map<string, string[]>;
  /** The guild's text channel. */
  general: FakeChannel;
}

export function makeWorld(): World {
  const bot = makeUser('turnbridge-bot', true);
  const users = {
    alice: makeUser('alice'), bob: makeUser('bob'), carol: makeUser('carol'), dave: makeUser('dave'), erin: makeUser('erin'),
    otherbot: makeUser('otherbot', true),
  };
  // Its timestamp part is odd, so with 2 shards the guild is on shard 1 and DMs on shard 0.
  const guildId = (BigInt(snowflake()) | (1n << 22n)).toString();
  const approvers = { id: snowflake(), name: 'approvers' };
  const guild = { id: guildId, name: 'Fake Guild', roles: [{ id: guildId, name: '@everyone' }, approvers] };
  const memberRoles = new Map<string, string[]>([...Object.values(users), bot].map((u) => [u.id, u === users.carol ? [approvers.id] : []]));
  const general: FakeChannel = { id: snowflake(), type: 0, name: 'general', guild_id: guildId };
  return { bot, users, guild, memberRoles, general };
}

export function guildCreatePayload(w: World, channels: FakeChannel[], premiumTier = 0): Record<string, unknown> {
  const members = [w.bot, ...Object.values(w.users)].map((u) => memberPayload(u, w.memberRoles.get(u.id) ?? []));
  return {
    id: w.guild.id, name: w.guild.name, icon: null, owner_id: w.users.alice.id, afk_timeout: 300, verification_level: 0,
    default_message_notifications: 0, explicit_content_filter: 0, mfa_level: 0, nsfw_level: 0, premium_tier: premiumTier,
    system_channel_flags: 0, preferred_locale: 'en-US', features: [], emojis: [], stickers: [], presences: [], voice_states: [],
    stage_instances: [], guild_scheduled_events: [], soundboard_sounds: [], large: false, unavailable: false,
    member_count: members.length, joined_at: new Date(0).toISOString(),
    roles: w.guild.roles.map((r, i) => ({ id: r.id, name: r.name, color: 0, colors: { primary_color: 0, secondary_color: null, tertiary_color: null }, hoist: false, position: i, permissions: ALL_PERMISSIONS, managed: false, mentionable: true, flags: 0 })),
    channels: channels.filter((c) => c.type === 0).map(channelPayload),
    threads: channels.filter((c) => c.type === 11).map(channelPayload),
    members,
  };
}
