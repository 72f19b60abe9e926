/**
 * Web API method handlers of the fake Slack: state (messages, reactions, users) plus the
 * documented limits the bridge must respect (chat.update text <= 4,000; markdown blocks
 * <= 12,000 in total; section text <= 3,000; <= 50 blocks; an actions block's 25 elements with
 * unique action_ids, button text <= 75, checkboxes of 1-10 options, option text <= 75) and the
 * streaming rules (chat.startStream / appendStream / stopStream, see stream-api.ts) and agent
 * sessions (agents.sessions.*, see agent-sessions.ts).
 */
import { randomUUID } from 'node:crypto';
import { AGENT_METHODS, handleAgentMethod, type AgentState } from './agent-sessions.js';
import { FILE_METHODS, type FakeUploads, type SharedFile } from './files-api.js';
import { handleStreamMethod, STREAM_METHODS } from './stream-api.js';

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
  /**
   * Streamed messages: the stream state and the markdown streamed so far. `byUser`: Slack stopped
   * it when a person clicked the native Stop (agent_session_stopped).
   */
  stream?: { state: 'streaming' | 'stopped'; mode: 'markdown_text' | 'chunks'; markdown: string; recipient?: string; byUser?: boolean };
  /** Files shared in the message (files.completeUploadExternal). */
  files?: SharedFile[];
}

export interface Ephemeral {
  channel: string;
  user: string;
  text: string;
  thread_ts?: string;
  /**
   * Whether Slack shows it: "Ephemeral messages in threads are only shown if there is already an
   * active thread" (chat.postEphemeral docs), i.e. one with a reply; in a channel, always.
   */
  shown: boolean;
}

export interface WebApiState extends AgentState {
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
  /** trigger_ids handed out with clicks: when, and whether views.open spent it. */
  triggers: Map<string, { at: number; used: boolean }>;
  /** Modals opened with views.open, in order. */
  views: OpenedView[];
  /** Slack user groups (subteam id -> member user ids), for usergroups.users.list. */
  usergroups: Map<string, string[]>;
  /** When set, chat.startStream / appendStream / stopStream answer this error (e.g. unknown_method). */
  streamRefusal?: string;
  /** External file uploads (files-api.ts). */
  uploads: FakeUploads;
  nextTs(): string;
  connectionsUrl(): string;
}

export interface OpenedView {
  id: string;
  trigger_id: string;
  view: Record<string, any>;
}

/** A trigger_id is good for 3 s, once (Slack: expired_trigger_id / exchanged_trigger_id). */
export const TRIGGER_TTL_MS = 3000;

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
      const els: Array<Record<string, any>> = b.elements ?? [];
      if (els.length === 0 || els.length > 25) return 'invalid_blocks';
      // action_ids are unique within a block (Block Kit reference: actions block)
      if (new Set(els.map((e) => e?.action_id)).size !== els.length) return 'invalid_blocks';
      for (const e of els) {
        if (typeof e?.value === 'string' && e.value.length > 2000) return 'invalid_blocks';
        if (e?.type === 'button' && String(e.text?.text ?? '').length > 75) return 'invalid_blocks';
        if (e?.type === 'checkboxes') {
          const opts: Array<Record<string, any>> = e.options ?? [];
          if (opts.length === 0 || opts.length > 10) return 'invalid_blocks';
          if (opts.some((o) => String(o.text?.text ?? '').length > 75 || String(o.description?.text ?? '').length > 75 || String(o.value ?? '').length > 150)) return 'invalid_blocks';
        }
      }
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
  if (FILE_METHODS.has(method)) return s.uploads.handle(method, p);
  if (AGENT_METHODS.has(method)) return handleAgentMethod(s, method, p);
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
      const thread = p.thread_ts ? String(p.thread_ts) : undefined;
      const active = !thread || [...s.messages.values()].some((m) => m.channel === p.channel && m.thread_ts === thread && m.ts !== thread);
      s.ephemerals.push({ channel: p.channel, user: p.user, text: String(p.text ?? ''), ...(thread ? { thread_ts: thread } : {}), shown: active });
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
    case 'views.open': {
      const t = s.triggers.get(String(p.trigger_id ?? ''));
      if (!t) return { ok: false, error: 'invalid_trigger_id' };
      if (t.used) return { ok: false, error: 'exchanged_trigger_id' };
      if (Date.now() - t.at > TRIGGER_TTL_MS) return { ok: false, error: 'expired_trigger_id' };
      const view = typeof p.view === 'string' ? JSON.parse(p.view) : p.view;
      if (view?.type !== 'modal' || !view.title?.text) return { ok: false, error: 'invalid_arguments' };
      if (String(view.title.text).length > 24 || (view.submit && String(view.submit.text).length > 24)) return { ok: false, error: 'invalid_arguments' };
      if (!Array.isArray(view.blocks) || view.blocks.length > 100) return { ok: false, error: 'invalid_arguments' };
      if (view.blocks.some((b: any) => b.type === 'input') && !view.submit) return { ok: false, error: 'invalid_arguments' };
      if (String(view.private_metadata ?? '').length > 3000) return { ok: false, error: 'invalid_arguments' };
      for (const b of view.blocks) {
        const init = b.element?.initial_value;
        if (typeof init === 'string' && init.length > 3000) return { ok: false, error: 'invalid_arguments' };
      }
      t.used = true;
      const id = `V${String(s.views.length + 1).padStart(6, '0')}`;
      s.views.push({ id, trigger_id: String(p.trigger_id), view });
      return { ok: true, view: { id, ...view } };
    }
    case 'usergroups.users.list': {
      const members = s.usergroups.get(String(p.usergroup ?? ''));
      if (!members) return { ok: false, error: 'no_such_subteam' };
      return { ok: true, users: members };
    }
    case 'conversations.history': {
      const ch = s.channels.get(String(p.channel ?? ''));
      if (!ch) return { ok: false, error: 'channel_not_found' };
      if (!ch.member) return { ok: false, error: 'not_in_channel' };
      const messages = [...s.messages.values()].filter((m) => m.channel === p.channel).slice(-Number(p.limit ?? 100));
      return { ok: true, messages: messages.map((m) => ({ type: 'message', ts: m.ts, text: m.text, user: m.user, ...(m.files ? { files: m.files } : {}) })), has_more: false };
    }
    case 'conversations.replies': {
      // A thread's messages, parent first, oldest first; paged by an opaque cursor (docs: limit
      // up to 1000, 200 recommended; `has_more` + `response_metadata.next_cursor`).
      const ch = s.channels.get(String(p.channel ?? ''));
      if (ch && !ch.member) return { ok: false, error: 'not_in_channel' };
      const root = s.messages.get(key(String(p.channel ?? ''), String(p.ts ?? '')));
      if (!root) return { ok: false, error: 'thread_not_found' };
      const thread = [...s.messages.values()].filter((m) => m.channel === p.channel && (m.ts === root.ts || m.thread_ts === root.ts))
        .sort((a, b) => Number(a.ts) - Number(b.ts));
      const limit = Math.min(1000, Math.max(1, Number(p.limit ?? 1000)));
      const start = p.cursor ? Number(Buffer.from(String(p.cursor), 'base64').toString()) : 0;
      const page = thread.slice(start, start + limit);
      const more = start + limit < thread.length;
      return {
        ok: true, has_more: more,
        messages: page.map((m) => ({
          type: 'message', ts: m.ts, ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}), user: m.user, ...(m.bot_id ? { bot_id: m.bot_id } : {}), text: m.text, blocks: m.blocks,
          ...(m.files ? { files: m.files, upload: false } : {}),
        })),
        ...(more ? { response_metadata: { next_cursor: Buffer.from(String(start + limit)).toString('base64') } } : {}),
      };
    }
    case 'assistant.threads.setStatus':
      if (!p.channel_id || !p.thread_ts) return { ok: false, error: 'invalid_arguments' };
      s.statuses.push({ channel_id: p.channel_id, thread_ts: p.thread_ts, status: String(p.status ?? '') });
      return { ok: true };
    default:
      return { ok: false, error: 'unknown_method', req_id: randomUUID() };
  }
}
