/**
 * Web API method handlers of the fake Slack: state (messages, reactions, users) plus the
 * documented limits the bridge must respect (chat.update text <= 4,000; markdown blocks
 * <= 12,000 in total; section text <= 3,000; <= 50 blocks) and the streaming rules
 * (chat.startStream / appendStream / stopStream, see stream-api.ts).
 */
import { handleStreamMethod, STREAM_METHODS } from './stream-api.js';
import { randomUUID } from 'node:crypto';

export interface FakeMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  user: string;
  bot_id?: string;
  text: string;
  blocks: Array<Record<string, any>>;
  /** Every version, oldest first (posted, then each update). */
  history: Array<{ text: string; blocks: Array<Record<string, any>> }>;
  reactions: Set<string>;
  /** Streamed messages: the stream state and the markdown streamed so far. */
  stream?: { state: 'streaming' | 'stopped'; mode: 'markdown_text' | 'chunks'; markdown: string; recipient?: string };
}

export interface Ephemeral {
  channel: string;
  user: string;
  text: string;
  thread_ts?: string;
}

export interface WebApiState {
  team: string;
  botUserId: string;
  botId: string;
  botToken: string;
  appToken: string;
  messages: Map<string, FakeMessage>;
  ephemerals: Ephemeral[];
  statuses: Array<{ channel_id: string; thread_ts: string; status: string }>;
  users: Map<string, { name: string; display_name?: string }>;
  /** Channels with membership, for conversations.history (fake doctor checks). */
  channels: Map<string, { member: boolean }>;
  /** Messages deleted with chat.delete (channel:ts), in order. */
  deleted: string[];
  /** When set, chat.startStream / appendStream / stopStream answer this error (e.g. unknown_method). */
  streamRefusal?: string;
  nextTs(): string;
  connectionsUrl(): string;
}

export type ApiAnswer = { ok: true; [k: string]: unknown } | { ok: false; error: string; [k: string]: unknown };

export function blockErrors(blocks: unknown): string | undefined {
  if (blocks === undefined) return undefined;
  if (!Array.isArray(blocks)) return 'invalid_blocks_format';
  if (blocks.length > 50) return 'msg_blocks_too_many';
  let markdown = 0;
  for (const b of blocks as Array<Record<string, any>>) {
    if (typeof b?.type !== 'string') return 'invalid_blocks';
    if (b.type === 'markdown') {
      if (typeof b.text !== 'string' || b.text.length === 0) return 'invalid_blocks';
      markdown += b.text.length;
    }
    if (b.type === 'section' && typeof b.text?.text === 'string' && b.text.text.length > 3000) return 'invalid_blocks';
    if (b.type === 'context') {
      for (const e of b.elements ?? []) if (typeof e?.text === 'string' && e.text.length > 3000) return 'invalid_blocks';
    }
    if (b.type === 'actions') {
      for (const e of b.elements ?? []) if (typeof e?.value === 'string' && e.value.length > 2000) return 'invalid_blocks';
    }
  }
  if (markdown > 12_000) return 'msg_blocks_too_long';
  return undefined;
}

export function handleMethod(s: WebApiState, method: string, p: Record<string, any>, token: string): ApiAnswer {
  const isBot = token === s.botToken;
  if (method === 'apps.connections.open') {
    if (!token.startsWith('xapp-')) return { ok: false, error: 'not_allowed_token_type' };
    if (token !== s.appToken) return { ok: false, error: 'invalid_auth' };
    return { ok: true, url: s.connectionsUrl() };
  }
  if (!token) return { ok: false, error: 'not_authed' };
  if (!isBot) return { ok: false, error: 'invalid_auth' };
  const key = (channel: string, ts: string): string => `${channel}:${ts}`;
  if (STREAM_METHODS.has(method)) return handleStreamMethod(s, method, p);
  switch (method) {
    case 'auth.test':
      return { ok: true, url: 'https://fake.slack.test/', team: 'Fake Team', user: 'turnbridge', team_id: s.team, user_id: s.botUserId, bot_id: s.botId, is_enterprise_install: false };
    case 'chat.postMessage': {
      if (!p.channel) return { ok: false, error: 'channel_not_found' };
      if (!p.text && !p.blocks) return { ok: false, error: 'no_text' };
      const err = blockErrors(p.blocks);
      if (err) return { ok: false, error: err };
      const text = String(p.text ?? '').slice(0, 40_000);
      const ts = s.nextTs();
      const msg: FakeMessage = {
        channel: p.channel, ts, ...(p.thread_ts ? { thread_ts: String(p.thread_ts) } : {}), user: s.botUserId, bot_id: s.botId,
        text, blocks: p.blocks ?? [], history: [{ text, blocks: p.blocks ?? [] }], reactions: new Set(),
      };
      s.messages.set(key(p.channel, ts), msg);
      return { ok: true, channel: p.channel, ts, message: { type: 'message', user: s.botUserId, bot_id: s.botId, text, ts, ...(msg.thread_ts ? { thread_ts: msg.thread_ts } : {}) } };
    }
    case 'chat.update': {
      const msg = s.messages.get(key(p.channel, p.ts));
      if (!msg) return { ok: false, error: 'message_not_found' };
      if (msg.user !== s.botUserId) return { ok: false, error: 'cant_update_message' };
      if (msg.stream?.state === 'streaming') return { ok: false, error: 'streaming_state_conflict' };
      if (typeof p.text === 'string' && p.text.length > 4_000) return { ok: false, error: 'msg_too_long' };
      const err = blockErrors(p.blocks);
      if (err) return { ok: false, error: err };
      msg.text = String(p.text ?? '');
      msg.blocks = p.blocks ?? [];
      msg.history.push({ text: msg.text, blocks: msg.blocks });
      return { ok: true, channel: p.channel, ts: p.ts, text: msg.text };
    }
    case 'chat.delete': {
      const msg = s.messages.get(key(p.channel, p.ts));
      if (!msg) return { ok: false, error: 'message_not_found' };
      if (msg.user !== s.botUserId) return { ok: false, error: 'cant_delete_message' };
      s.messages.delete(key(p.channel, p.ts));
      s.deleted.push(key(p.channel, p.ts));
      return { ok: true, channel: p.channel, ts: p.ts };
    }
    case 'chat.postEphemeral': {
      if (!p.channel || !p.user) return { ok: false, error: 'channel_not_found' };
      s.ephemerals.push({ channel: p.channel, user: p.user, text: String(p.text ?? ''), ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}) });
      return { ok: true, message_ts: s.nextTs() };
    }
    case 'reactions.add':
    case 'reactions.remove': {
      const msg = s.messages.get(key(p.channel, p.timestamp));
      if (!msg) return { ok: false, error: 'message_not_found' };
      if (method === 'reactions.add') {
        if (msg.reactions.has(p.name)) return { ok: false, error: 'already_reacted' };
        msg.reactions.add(p.name);
      } else if (!msg.reactions.delete(p.name)) {
        return { ok: false, error: 'no_reaction' };
      }
      return { ok: true };
    }
    case 'users.info': {
      const u = s.users.get(p.user);
      if (!u) return { ok: false, error: 'user_not_found' };
      return { ok: true, user: { id: p.user, name: u.name, real_name: u.name, profile: { display_name: u.display_name ?? u.name, real_name: u.name } } };
    }
    case 'conversations.history': {
      const ch = s.channels.get(String(p.channel ?? ''));
      if (!ch) return { ok: false, error: 'channel_not_found' };
      if (!ch.member) return { ok: false, error: 'not_in_channel' };
      const messages = [...s.messages.values()].filter((m) => m.channel === p.channel).slice(-Number(p.limit ?? 100));
      return { ok: true, messages: messages.map((m) => ({ type: 'message', ts: m.ts, text: m.text, user: m.user })), has_more: false };
    }
    case 'assistant.threads.setStatus':
      if (!p.channel_id || !p.thread_ts) return { ok: false, error: 'invalid_arguments' };
      s.statuses.push({ channel_id: p.channel_id, thread_ts: p.thread_ts, status: String(p.status ?? '') });
      return { ok: true };
    default:
      return { ok: false, error: 'unknown_method', req_id: randomUUID() };
  }
}
