/**
 * The fake's agent sessions, as Slack documents them (docs.slack.dev/ai/agent-sessions and the
 * reference pages of agents.sessions.setStatus, agents.sessions.rename,
 * assistant.threads.setSuggestedPrompts and the agent_session_stopped event):
 *
 * - sessions are per thread (channel + thread_ts); setStatus creates one when missing, with its
 *   title and initiator (both ignored afterwards), and answers {status, agent_status, title};
 * - statuses are active | processing | suspended | closed (invalid_status otherwise);
 *   thread_ts missing: thread_ts_required; the token needs chat:write (missing_scope);
 * - only an app declared an agent may create sessions. Slack's pages do not name the error an
 *   undeclared app gets; the fake answers not_authorized (rename's page: "The calling app is not
 *   an authorized agent for this session"), as it does for a channel the bot is not in
 *   (setStatus's page: "The caller is not a member of the specified channel");
 * - while the app does not subscribe to agent_session_stopped, every setStatus carries the
 *   warning missing_agent_session_stopped_event_subscription (and Slack shows no Stop button);
 * - processing times out to active after one hour (`sessionTimeoutMs`, divided by timeScale);
 * - chat.startStream creates the session (initiator: the thread root's author) and sets
 *   processing; chat.stopStream sets `session_status` (default active) (stream-api.ts);
 * - setSuggestedPrompts needs assistant:write, at most four prompts each with title and
 *   message; for an agent app a call with thread_ts "silently fails" (recorded as ignored).
 *
 * Where Slack's pages are silent the fake picks an answer and says so: a title over 200
 * characters, a missing or longer prompt list, and a session_status chat.stopStream does not
 * know answer invalid_arguments; a missing channel_id channel_not_found.
 */
import type { ApiAnswer, WebApiState } from './web-api.js';

export const SESSION_STATUSES = ['active', 'processing', 'suspended', 'closed'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export interface FakeSession {
  channel: string;
  thread_ts: string;
  status: SessionStatus;
  title?: string;
  initiator?: string;
  /** When the status was last set (the processing timeout runs from here). */
  since: number;
  /** Every status the session had, in order (timeouts included). */
  history: SessionStatus[];
}

export interface SuggestedPromptsCall {
  channel_id: string;
  prompts: Array<{ title: string; message: string }>;
  title?: string;
  /** Sent with thread_ts by an agent app: Slack drops it silently. */
  ignored: boolean;
}

/** What the agent side of the fake keeps (part of WebApiState). */
export interface AgentState {
  /** Declared as an agent in the app settings. */
  agent: boolean;
  /** The bot events the app subscribes to. */
  events: ReadonlySet<string>;
  /** The bot token's scopes. */
  scopes: readonly string[];
  sessions: Map<string, FakeSession>;
  suggestedPrompts: SuggestedPromptsCall[];
  /** processing -> active after this long (Slack: one hour). */
  sessionTimeoutMs: number;
  now(): number;
}

export const AGENT_METHODS = new Set(['agents.sessions.setStatus', 'agents.sessions.rename', 'assistant.threads.setSuggestedPrompts']);

const STOP_WARNING = 'missing_agent_session_stopped_event_subscription';
const TITLE_MAX = 200;

const sessionKey = (channel: string, thread: string): string => `${channel}:${thread}`;

/** The session of a thread as it is now (a processing session past its timeout is active). */
export function sessionOf(s: WebApiState, channel: string, thread: string): FakeSession | undefined {
  const session = s.sessions.get(sessionKey(channel, thread));
  if (session?.status === 'processing' && s.now() - session.since >= s.sessionTimeoutMs) setSession(s, session, 'active', session.since + s.sessionTimeoutMs);
  return session;
}

function setSession(s: WebApiState, session: FakeSession, status: SessionStatus, at = s.now()): void {
  session.status = status;
  session.since = at;
  session.history.push(status);
}

/** setStatus's effect, also used by chat.startStream / stopStream: create or update the thread's session. */
export function putSession(s: WebApiState, channel: string, thread: string, status: SessionStatus, create: { title?: string; initiator?: string } = {}): FakeSession {
  const existing = sessionOf(s, channel, thread);
  if (existing) {
    setSession(s, existing, status);
    return existing;
  }
  const session: FakeSession = {
    channel, thread_ts: thread, status, since: s.now(), history: [status],
    ...(create.title ? { title: create.title } : {}), ...(create.initiator ? { initiator: create.initiator } : {}),
  };
  s.sessions.set(sessionKey(channel, thread), session);
  return session;
}

function missingScope(s: WebApiState, needed: string): ApiAnswer | undefined {
  return s.scopes.includes(needed) ? undefined : { ok: false, error: 'missing_scope', needed, provided: s.scopes.join(',') };
}

/** The checks setStatus and rename share; undefined when the call may go on. */
function refuse(s: WebApiState, p: Record<string, any>): ApiAnswer | undefined {
  const scope = missingScope(s, 'chat:write');
  if (scope) return scope;
  if (!s.agent) return { ok: false, error: 'not_authorized' };
  if (!p.channel_id) return { ok: false, error: 'channel_not_found' };
  const ch = s.channels.get(String(p.channel_id));
  if (ch && !ch.member) return { ok: false, error: 'not_authorized' };
  if (!p.thread_ts) return { ok: false, error: 'thread_ts_required' };
  return undefined;
}

function withStopWarning(s: WebApiState, answer: { ok: true; [k: string]: unknown }): ApiAnswer {
  if (s.events.has('agent_session_stopped')) return answer;
  return { ...answer, warning: STOP_WARNING, response_metadata: { warnings: [STOP_WARNING] } };
}

export function handleAgentMethod(s: WebApiState, method: string, p: Record<string, any>): ApiAnswer {
  if (method === 'assistant.threads.setSuggestedPrompts') {
    const scope = missingScope(s, 'assistant:write');
    if (scope) return scope;
    if (!p.channel_id) return { ok: false, error: 'channel_not_found' };
    const prompts = p.prompts;
    if (!Array.isArray(prompts) || prompts.length === 0 || prompts.length > 4) return { ok: false, error: 'invalid_arguments' };
    if (prompts.some((x: any) => typeof x?.title !== 'string' || !x.title || typeof x?.message !== 'string' || !x.message)) return { ok: false, error: 'invalid_arguments' };
    s.suggestedPrompts.push({ channel_id: String(p.channel_id), prompts, ...(p.title ? { title: String(p.title) } : {}), ignored: s.agent && p.thread_ts !== undefined });
    return { ok: true };
  }
  const refused = refuse(s, p);
  if (refused) return refused;
  const channel = String(p.channel_id);
  const thread = String(p.thread_ts);
  if (method === 'agents.sessions.rename') {
    const title = typeof p.title === 'string' ? p.title : '';
    if (title.length === 0 || title.length > TITLE_MAX) return { ok: false, error: 'invalid_arguments' };
    const session = sessionOf(s, channel, thread);
    if (!session) return { ok: false, error: 'session_not_found' };
    session.title = title;
    return { ok: true, title };
  }
  const status = p.status;
  if (status === undefined || status === '') return { ok: false, error: 'invalid_arguments' };
  if (!(SESSION_STATUSES as readonly string[]).includes(status)) return { ok: false, error: 'invalid_status' };
  if (typeof p.title === 'string' && p.title.length > TITLE_MAX) return { ok: false, error: 'invalid_arguments' };
  const session = putSession(s, channel, thread, status as SessionStatus, {
    ...(typeof p.title === 'string' && p.title ? { title: p.title } : {}),
    ...(p.initiator_user_id ? { initiator: String(p.initiator_user_id) } : {}),
  });
  return withStopWarning(s, { ok: true, status: session.status, agent_status: session.status, ...(session.title ? { title: session.title } : {}) });
}

/** What clickNativeStop needs of the fake. */
export interface StopHost {
  readonly state: WebApiState;
  nextTs(): string;
  sendEvent(event: Record<string, unknown>): Promise<string>;
  emit(event: 'change'): boolean;
}

/**
 * A person clicks Slack's own Stop on a thread's agent session. Slack shows it only while the
 * session is processing and the app subscribes to agent_session_stopped (else the person sees a
 * loading indicator with no button): otherwise this throws, as no click is possible. Slack stops
 * the app's streams in the thread, then sends agent_session_stopped {channel, thread_ts, user,
 * streaming_message_ts[]}; the session stays processing (the app must move it).
 */
export async function clickNativeStop(fake: StopHost, c: { channel: string; threadTs: string; user: string }): Promise<{ eventId: string; stopped: string[] }> {
  const s = fake.state;
  const session = sessionOf(s, c.channel, c.threadTs);
  if (!s.agent) throw new Error('fake slack: no native Stop: the app is not declared an agent');
  if (!s.events.has('agent_session_stopped')) throw new Error('fake slack: no native Stop button: the app does not subscribe to agent_session_stopped');
  if (session?.status !== 'processing') throw new Error(`fake slack: no native Stop button: the session is ${session?.status ?? 'absent'}, not processing`);
  const stopped: string[] = [];
  for (const m of s.messages.values()) {
    if (m.channel !== c.channel || m.thread_ts !== c.threadTs || m.stream?.state !== 'streaming') continue;
    m.stream.state = 'stopped';
    m.stream.byUser = true;
    stopped.push(m.ts);
  }
  fake.emit('change');
  const eventId = await fake.sendEvent({ type: 'agent_session_stopped', channel: c.channel, thread_ts: c.threadTs, user: c.user, streaming_message_ts: stopped, event_ts: fake.nextTs() });
  return { eventId, stopped };
}
