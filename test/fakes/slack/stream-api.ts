/**
 * The fake's chat.startStream / chat.appendStream / chat.stopStream, with the documented rules:
 * thread_ts required; recipient_user_id + recipient_team_id required outside DMs; markdown_text
 * or chunks (not both), and every call of one stream in the mode it started with
 * (streaming_mode_mismatch); markdown_text <= 12,000 per call and per message (msg_too_long);
 * message_not_in_streaming_state after stop. chat.update of a streaming message answers
 * streaming_state_conflict (web-api.ts). `streamRefusal` makes all three answer one error
 * (unknown_method, not_allowed, channel_type_not_supported ...) to test fallbacks.
 *
 * Agent sessions (agent-sessions.ts): for an app declared an agent, chat.startStream creates the
 * thread's session (its initiator the root message's author) and sets it processing;
 * chat.stopStream sets `session_status` (default active). A stream Slack stopped for the native
 * Stop answers appends with stopped_by_user ("no further appends are accepted", the
 * appendStream reference) and a stop with message_not_in_streaming_state (stopStream's page
 * lists no stopped_by_user).
 */
import { putSession, SESSION_STATUSES, type SessionStatus } from './agent-sessions.js';
import { blockErrors, type ApiAnswer, type FakeMessage, type WebApiState } from './web-api.js';

export const STREAM_METHODS = new Set(['chat.startStream', 'chat.appendStream', 'chat.stopStream']);

export const STREAM_MARKDOWN_LIMIT = 12_000;

type Mode = 'markdown_text' | 'chunks';

/** The markdown a call carries, in which mode; an error string when the arguments are wrong. */
function contentOf(p: Record<string, any>, required: boolean): { mode?: Mode; text: string } | string {
  const hasText = typeof p.markdown_text === 'string' && p.markdown_text !== '';
  const hasChunks = Array.isArray(p.chunks) && p.chunks.length > 0;
  if (hasText && hasChunks) return 'cannot_provide_both_markdown_text_and_chunks';
  if (hasText) {
    if (p.markdown_text.length > STREAM_MARKDOWN_LIMIT) return 'msg_too_long';
    return { mode: 'markdown_text', text: p.markdown_text };
  }
  if (hasChunks) {
    let text = '';
    for (const c of p.chunks as Array<Record<string, any>>) {
      if (c?.type !== 'markdown_text' || typeof c.text !== 'string') return 'invalid_chunks';
      text += c.text;
    }
    return { mode: 'chunks', text };
  }
  return required ? 'invalid_arguments' : { text: '' };
}

function render(msg: FakeMessage, extra: Array<Record<string, any>> = []): void {
  const markdown = msg.stream!.markdown;
  msg.blocks = [...(markdown ? [{ type: 'markdown', text: markdown }] : []), ...extra];
  msg.text = markdown;
  msg.history.push({ text: msg.text, blocks: msg.blocks });
}

export function handleStreamMethod(s: WebApiState, method: string, p: Record<string, any>): ApiAnswer {
  if (s.streamRefusal) return { ok: false, error: s.streamRefusal };
  if (!p.channel) return { ok: false, error: 'channel_not_found' };
  if (method === 'chat.startStream') {
    if (!p.thread_ts) return { ok: false, error: 'invalid_arguments', detail: 'thread_ts is required' };
    const dm = String(p.channel).startsWith('D');
    if (!dm && (!p.recipient_user_id || !p.recipient_team_id)) {
      return { ok: false, error: 'invalid_arguments', detail: 'recipient_user_id and recipient_team_id are required when streaming to channels' };
    }
    const c = contentOf(p, true);
    if (typeof c === 'string') return { ok: false, error: c };
    const ts = s.nextTs();
    if (s.agent) putSession(s, String(p.channel), String(p.thread_ts), 'processing', { initiator: s.messages.get(`${p.channel}:${p.thread_ts}`)?.user });
    const msg: FakeMessage = {
      channel: p.channel, ts, thread_ts: String(p.thread_ts), user: s.botUserId, bot_id: s.botId, text: '', blocks: [], history: [],
      reactions: new Set(), stream: { state: 'streaming', mode: c.mode!, markdown: c.text, ...(p.recipient_user_id ? { recipient: p.recipient_user_id } : {}) },
    };
    render(msg);
    s.messages.set(`${p.channel}:${ts}`, msg);
    return { ok: true, channel: p.channel, ts };
  }
  const msg = s.messages.get(`${p.channel}:${p.ts}`);
  if (!msg) return { ok: false, error: 'message_not_found' };
  if (msg.stream?.byUser && method === 'chat.appendStream') return { ok: false, error: 'stopped_by_user' };
  if (!msg.stream || msg.stream.state !== 'streaming') return { ok: false, error: 'message_not_in_streaming_state' };
  const sessionStatus = p.session_status ?? 'active';
  if (method === 'chat.stopStream' && !(SESSION_STATUSES as readonly string[]).includes(sessionStatus)) return { ok: false, error: 'invalid_arguments' };
  const c = contentOf(p, method === 'chat.appendStream');
  if (typeof c === 'string') return { ok: false, error: c };
  if (c.mode && c.mode !== msg.stream.mode) return { ok: false, error: 'streaming_mode_mismatch' };
  if (msg.stream.markdown.length + c.text.length > STREAM_MARKDOWN_LIMIT) return { ok: false, error: 'msg_too_long' };
  let extra: Array<Record<string, any>> = [];
  if (method === 'chat.stopStream' && p.blocks !== undefined) {
    const err = blockErrors(p.blocks);
    if (err) return { ok: false, error: err };
    extra = p.blocks;
  }
  msg.stream.markdown += c.text;
  if (method === 'chat.stopStream') {
    msg.stream.state = 'stopped';
    if (s.agent && msg.thread_ts) putSession(s, msg.channel, msg.thread_ts, sessionStatus as SessionStatus);
  }
  render(msg, extra);
  return { ok: true, channel: p.channel, ts: p.ts };
}
