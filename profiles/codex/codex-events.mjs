// Codex `exec --json` JSONL events -> AgentProc wire 0.4 events.
// Agent messages arrive as whole items (one partial per item, not per token).
import { short, shownPath, createThinking, finite, usageFrom, errorText } from '../lib/cli-events.mjs';
import { createTaskLine } from '../lib/task-line.mjs';

// "Reconnecting... 2/5 (unexpected status 503 …)" and "Reconnecting... waiting for network".
const RECONNECTING = /^Reconnecting\.\.\.\s*(?:(\d+\/\d+)\s*)?(.*)$/s;

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
    default: return null;
  }
}

/**
 * A todo_list item (codex's update_plan, shown by `codex exec` 0.169 as {text, completed}) as
 * task-line items: the in-progress step is not told apart from pending ones, so the first step
 * not completed is taken as the current one (update_plan allows one in progress).
 */
export function todoItems(item) {
  const steps = Array.isArray(item.items) ? item.items.filter((i) => i && typeof i.text === 'string') : [];
  const current = steps.findIndex((i) => i.completed !== true);
  return steps.map((i, k) => ({ text: i.text, status: i.completed === true ? 'completed' : k === current ? 'in_progress' : 'pending' }));
}

/** turn.completed usage in the wire's convention. */
export function codexUsage(u) {
  if (!u || typeof u !== 'object') return undefined;
  const input = finite(u.input_tokens);
  const output = finite(u.output_tokens);
  return usageFrom([
    ['input_tokens', input],
    ['output_tokens', output],
    ['total_tokens', input !== undefined && output !== undefined ? input + output : undefined],
    ['cache_read_input_tokens', u.cached_input_tokens],
    ['reasoning_tokens', u.reasoning_output_tokens],
  ]);
}

/** "Reconnecting to the model (2/5): unexpected status 503 Service Unavailable…" as a thinking line. */
function reconnectLine(count, detail) {
  const why = short(detail.replace(/^\((.*)\)$/s, '$1').replace(/, url: \S+$/, ''));
  return `Reconnecting to the model${count ? ` (${count})` : ''}${why ? `: ${why}` : ''}…`;
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
  let lastError = '';
  const thinking = createThinking(emit);
  const { line } = thinking;
  const taskLine = createTaskLine(thinking);

  function onItem(item, completed) {
    if (!item || typeof item !== 'object') return;
    const key = `${item.id ?? ''}:${item.type}`;
    if (item.type === 'todo_list') {
      taskLine.show(todoItems(item));
      return;
    }
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
        // Only a plan changes as it goes (other items are shown when they start or complete).
        case 'item.updated': if (ev.item?.type === 'todo_list') onItem(ev.item, false); return null;
        case 'item.completed': onItem(ev.item, true); return null;
        case 'turn.completed':
          emit.result(lastMessage, codexUsage(ev.usage));
          return 'result';
        case 'turn.failed': {
          const msg = errorText(ev.error) || lastError || 'codex reported a failed turn';
          emit.error(String(msg), codexUsage(ev.usage));
          return 'error';
        }
        case 'error': {
          const msg = typeof ev.message === 'string' ? ev.message : '';
          const retry = RECONNECTING.exec(msg);
          if (retry) line(reconnectLine(retry[1], retry[2]));
          else if (msg) lastError = msg;
          return null;
        }
        default: return null;
      }
    },
  };
}
