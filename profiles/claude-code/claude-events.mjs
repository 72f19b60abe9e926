// Claude Code stream-json (print mode, --include-partial-messages) -> AgentProc wire 0.4 events.
import { short, shownPath, createThinking, finite, usageFrom } from '../lib/cli-events.mjs';
import { createTaskLine } from '../lib/task-line.mjs';
import { createClaudeTasks } from './claude-tasks.mjs';

/** One short line for a tool call ("Running Bash: npm test", "Editing src/x.ts"); never the raw input. */
export function describeTool(name, input, cwd = process.cwd()) {
  const i = input && typeof input === 'object' ? input : {};
  const file = shownPath(i.file_path ?? i.notebook_path ?? i.path, cwd);
  switch (name) {
    case 'Bash': return i.command ? `Running Bash: ${short(i.command)}` : 'Running Bash';
    case 'BashOutput': return 'Reading command output';
    case 'Edit': case 'MultiEdit': return file ? `Editing ${file}` : 'Editing a file';
    case 'Write': return file ? `Writing ${file}` : 'Writing a file';
    case 'Read': return file ? `Reading ${file}` : 'Reading a file';
    case 'NotebookEdit': return file ? `Editing notebook ${file}` : 'Editing a notebook';
    case 'Glob': return i.pattern ? `Finding files: ${short(i.pattern)}` : 'Finding files';
    case 'Grep': return i.pattern ? `Searching for: ${short(i.pattern)}` : 'Searching';
    case 'WebFetch': return i.url ? `Fetching ${short(i.url)}` : 'Fetching a page';
    case 'WebSearch': return i.query ? `Searching the web: ${short(i.query)}` : 'Searching the web';
    case 'Task': case 'Agent': return i.description ? `Starting agent: ${short(i.description)}` : 'Starting an agent';
    case 'AskUserQuestion': {
      const q = Array.isArray(i.questions) ? i.questions.find((x) => x && typeof x.question === 'string') : undefined;
      return q ? `Asking: ${short(q.question)}` : 'Asking a question';
    }
    case 'ExitPlanMode': return 'Presenting the plan';
    default: {
      const m = /^mcp__(.+?)__(.+)$/.exec(String(name));
      return m ? `Calling ${m[1]}/${m[2]}` : `Using ${short(name)}`;
    }
  }
}

/**
 * Usage in the wire's convention: input_tokens counts cached reads and writes too
 * (Anthropic reports them apart); cost and duration when the CLI gives them.
 */
export function claudeUsage(result) {
  const u = result && typeof result.usage === 'object' && result.usage ? result.usage : {};
  const base = finite(u.input_tokens);
  const read = finite(u.cache_read_input_tokens);
  const write = finite(u.cache_creation_input_tokens);
  const input = base !== undefined || read !== undefined || write !== undefined ? (base ?? 0) + (read ?? 0) + (write ?? 0) : undefined;
  const output = finite(u.output_tokens);
  return usageFrom([
    ['input_tokens', input],
    ['output_tokens', output],
    ['total_tokens', input !== undefined && output !== undefined ? input + output : undefined],
    ['cache_read_input_tokens', read],
    ['cache_creation_input_tokens', write],
    ['cost_usd', result.total_cost_usd],
    ['duration_ms', result.duration_ms],
    ['num_turns', result.num_turns],
  ]);
}

/** The user-readable message of a failed result (is_error, or a non-success subtype). */
export function resultError(r) {
  if (r.is_error !== true && (r.subtype === undefined || r.subtype === 'success')) return null;
  if (typeof r.result === 'string' && r.result.trim()) return r.result.trim();
  if (Array.isArray(r.errors) && r.errors.length) return r.errors.map(String).join('; ');
  if (typeof r.error === 'string' && r.error) return r.error;
  if (r.subtype === 'error_max_turns') return 'claude stopped: the maximum number of turns was reached';
  return `claude reported an error (${r.subtype ?? 'is_error'})`;
}

/** claude's system/api_retry event as a thinking line: "API error 529 (overloaded), retrying (1/4)…". */
export function retryLine(ev) {
  const status = finite(ev.error_status);
  const what = status !== undefined ? `API error ${status}` : 'API error';
  const why = typeof ev.error === 'string' && ev.error ? ` (${short(ev.error.replace(/_/g, ' '))})` : '';
  const attempt = finite(ev.attempt);
  const max = finite(ev.max_retries);
  const count = attempt !== undefined ? (max !== undefined ? ` (${attempt}/${max})` : ` (${attempt})`) : '';
  return `${what}${why}, retrying${count}…`;
}

const fromSubagent = (ev) => typeof ev.parent_tool_use_id === 'string' && ev.parent_tool_use_id !== '';

/**
 * A stateful translator. Text and thinking stream from stream_event deltas; a whole `assistant`
 * message only adds text when its deltas were not seen (CLI without partial messages). Tool use
 * becomes one thinking line; task tools become the task line (lib/task-line.mjs). Sub-agent
 * (parent_tool_use_id) text and tasks stay out of the reply.
 */
export function createClaudeTranslator(emit, { cwd = process.cwd() } = {}) {
  const streamed = new Set(); // message ids whose content arrived as deltas
  let currentMessageId = null;
  let outputSoFar = '';
  let saidSinceTool = ''; // the answer text since the last tool call (a plan the model wrote out)
  const plans = new Map(); // ExitPlanMode tool_use id -> { called, said }
  let pendingBreak = false;
  const thinking = createThinking(emit);
  const tasks = createClaudeTasks();
  const taskLine = createTaskLine(thinking);

  const output = (text) => {
    if (!text) return;
    if (pendingBreak && outputSoFar && !outputSoFar.endsWith('\n\n')) text = (outputSoFar.endsWith('\n') ? '\n' : '\n\n') + text;
    pendingBreak = false;
    outputSoFar += text;
    saidSinceTool += text;
    emit.partial(text, 'output');
  };

  function onToolUse(b) {
    if (b.name === 'ExitPlanMode') plans.set(b.id, { called: b.input?.plan, said: saidSinceTool });
    saidSinceTool = '';
    if (!tasks.onToolUse(b)) thinking.line(describeTool(b.name, b.input, cwd));
  }

  /** claude's answers to tool calls: task tools' results update the task line. */
  function onUser(ev) {
    const blocks = Array.isArray(ev.message?.content) ? ev.message.content : [];
    const results = blocks.filter((b) => b && b.type === 'tool_result');
    // tool_use_result (claude's structured result) belongs to the event's one tool_result.
    const structured = results.length === 1 ? ev.tool_use_result : undefined;
    let changed = false;
    for (const r of results) if (tasks.onToolResult(r.tool_use_id, r.is_error === true, structured)) changed = true;
    if (changed) taskLine.show(tasks.items());
  }

  function onStreamEvent(ev) {
    const e = ev.event;
    if (!e || typeof e !== 'object') return;
    if (e.type === 'message_start') {
      currentMessageId = e.message?.id ?? null;
      if (currentMessageId) streamed.add(currentMessageId);
      return;
    }
    if (e.type === 'content_block_start') {
      if (e.content_block?.type === 'text') pendingBreak = true;
      else if (e.content_block?.type === 'thinking' && !thinking.endsLine) thinking.text('\n');
      return;
    }
    if (e.type === 'content_block_delta') {
      const d = e.delta ?? {};
      if (d.type === 'text_delta') output(d.text);
      else if (d.type === 'thinking_delta') thinking.text(d.thinking);
    }
  }

  function onAssistant(ev) {
    const msg = ev.message ?? {};
    // On an API failure claude sends a synthetic assistant message with the error text, then a
    // result with is_error and the same text: the error event carries it, the answer must not.
    if (ev.is_api_error_message === true || msg.model === '<synthetic>') return;
    const blocks = Array.isArray(msg.content) ? msg.content : [];
    const subagent = fromSubagent(ev);
    const sawDeltas = msg.id != null && streamed.has(msg.id);
    for (const b of blocks) {
      if (!b || typeof b !== 'object') continue;
      if (b.type === 'tool_use') {
        if (subagent) thinking.line(describeTool(b.name, b.input, cwd));
        else onToolUse(b);
      } else if (subagent || sawDeltas) continue;
      else if (b.type === 'text') { pendingBreak = true; output(b.text); }
      else if (b.type === 'thinking') thinking.text(b.thinking);
    }
  }

  return {
    /** What the stream showed of the plan of an ExitPlanMode call: { called, said }. */
    planHint(toolUseId) {
      return plans.get(toolUseId) ?? {};
    },
    /** Handle one CLI event; returns 'result' | 'error' when it ended the turn. */
    handle(ev) {
      if (typeof ev.session_id === 'string') emit.noteSessionId(ev.session_id);
      switch (ev.type) {
        case 'system':
          if (ev.subtype === 'api_retry') thinking.line(retryLine(ev));
          return null;
        case 'stream_event':
          if (fromSubagent(ev)) return null;
          onStreamEvent(ev);
          return null;
        case 'assistant': onAssistant(ev); return null;
        case 'user':
          if (!fromSubagent(ev)) onUser(ev);
          return null;
        case 'result': {
          const usage = claudeUsage(ev);
          const err = resultError(ev);
          if (err) { emit.error(err, usage); return 'error'; }
          emit.result(typeof ev.result === 'string' ? ev.result : outputSoFar, usage);
          return 'result';
        }
        default: return null;
      }
    },
  };
}
