// Codex `exec --json` JSONL events -> AgentProc wire 0.4 events.
// Agent messages arrive as whole items (one partial per item, not per token).
import { relative, isAbsolute } from 'node:path';

const MAX_LINE = 160;
const RECONNECTING = /^Reconnecting\.\.\. (\d+\/\d+)/;

function short(text) {
  const first = String(text).split('\n')[0].trim();
  return first.length > MAX_LINE ? `${first.slice(0, MAX_LINE - 1)}…` : first;
}

function shownPath(p, cwd) {
  if (typeof p !== 'string' || !p) return '';
  if (!isAbsolute(p) || !cwd) return p;
  const rel = relative(cwd, p);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
}

/** The shell command without codex's `bash -lc '…'` wrapping. */
export function unwrapCommand(cmd) {
  const s = Array.isArray(cmd) ? cmd.join(' ') : String(cmd ?? '');
  const m = /^(?:\/\S*\/)?(?:bash|sh|zsh) -l?c (['"])([\s\S]*)\1$/.exec(s);
  return m ? m[2] : s;
}

/** One short thinking line for a tool-like item, or null. */
export function describeItem(item, cwd = process.cwd()) {
  switch (item.type) {
    case 'command_execution': return `Running: ${short(unwrapCommand(item.command))}`;
    case 'file_change': {
      const changes = Array.isArray(item.changes) ? item.changes : [];
      if (!changes.length) return 'Editing files';
      const verb = { add: 'Creating', delete: 'Deleting', update: 'Editing' };
      return changes.map((c) => `${verb[c.kind] ?? 'Editing'} ${shownPath(c.path, cwd)}`).join('\n');
    }
    case 'mcp_tool_call': return `Calling ${item.server ?? 'mcp'}/${item.tool ?? 'tool'}`;
    case 'web_search': return item.query ? `Searching the web: ${short(item.query)}` : 'Searching the web';
    case 'todo_list': return 'Updating the plan';
    default: return null;
  }
}

/** turn.completed usage in the wire's convention. */
export function codexUsage(u) {
  if (!u || typeof u !== 'object') return undefined;
  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const out = {};
  if (num(u.input_tokens) !== undefined) out.input_tokens = u.input_tokens;
  if (num(u.output_tokens) !== undefined) out.output_tokens = u.output_tokens;
  if (out.input_tokens !== undefined && out.output_tokens !== undefined) out.total_tokens = out.input_tokens + out.output_tokens;
  if (num(u.cached_input_tokens) !== undefined) out.cache_read_input_tokens = u.cached_input_tokens;
  if (num(u.reasoning_output_tokens) !== undefined) out.reasoning_tokens = u.reasoning_output_tokens;
  return Object.keys(out).length ? out : undefined;
}

/**
 * turn.completed / turn.failed are the terminal outcomes. A top-level `error` is not: codex sends
 * "Reconnecting... 2/5" retries as `error` and then carries on; other errors are remembered and
 * reported only when the stream ends without a terminal event.
 */
export function createCodexTranslator(emit, { cwd = process.cwd() } = {}) {
  const shown = new Set();
  let output = '';
  let lastMessage = '';
  let thinkingEndsLine = true;
  let lastError = '';

  const thinking = (text) => {
    if (!text) return;
    thinkingEndsLine = text.endsWith('\n');
    emit.partial(text, 'thinking');
  };
  const line = (text) => thinking(`${thinkingEndsLine ? '' : '\n'}${text}\n`);

  function onItem(item, completed) {
    if (!item || typeof item !== 'object') return;
    const key = `${item.id ?? ''}:${item.type}`;
    if (item.type === 'agent_message') {
      if (!completed || typeof item.text !== 'string' || !item.text) return;
      const text = output ? `\n\n${item.text}` : item.text;
      output += text;
      lastMessage = item.text;
      emit.partial(text, 'output');
      return;
    }
    if (item.type === 'reasoning') {
      if (completed && typeof item.text === 'string') line(item.text.trim());
      return;
    }
    if (item.type === 'error') {
      if (completed && item.message) process.stderr.write(`[codex] ${item.message}\n`);
      return;
    }
    if (shown.has(key)) return;
    const desc = describeItem(item, cwd);
    if (desc === null) return;
    // file_change usually arrives only as completed; the others are shown when they start.
    if (!completed && item.type === 'file_change') return;
    shown.add(key);
    line(desc);
  }

  return {
    get lastError() { return lastError; },
    /** Handle one event; returns 'result' | 'error' when it ended the turn. */
    handle(ev) {
      switch (ev.type) {
        case 'thread.started': emit.noteSessionId(ev.thread_id); return null;
        case 'item.started': onItem(ev.item, false); return null;
        case 'item.completed': onItem(ev.item, true); return null;
        case 'turn.completed':
          emit.result(lastMessage, codexUsage(ev.usage));
          return 'result';
        case 'turn.failed': {
          const e = ev.error;
          const msg = (e && typeof e === 'object' ? e.message : typeof e === 'string' ? e : '') || lastError || 'codex reported a failed turn';
          emit.error(String(msg), codexUsage(ev.usage));
          return 'error';
        }
        case 'error': {
          const msg = typeof ev.message === 'string' ? ev.message : '';
          const retry = RECONNECTING.exec(msg);
          if (retry) line(`Reconnecting to the model (${retry[1]})…`);
          else if (msg) lastError = msg;
          return null;
        }
        default: return null;
      }
    },
  };
}
