// Claude Code stream-json (print mode, --include-partial-messages) -> AgentProc wire 0.4 events.
import { relative, isAbsolute } from 'node:path';

const MAX_LINE = 160;

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
    case 'TodoWrite': return 'Updating the plan';
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
  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const out = {};
  const base = num(u.input_tokens) ?? 0;
  const read = num(u.cache_read_input_tokens);
  const write = num(u.cache_creation_input_tokens);
  if (num(u.input_tokens) !== undefined || read !== undefined || write !== undefined) out.input_tokens = base + (read ?? 0) + (write ?? 0);
  if (num(u.output_tokens) !== undefined) out.output_tokens = u.output_tokens;
  if (out.input_tokens !== undefined && out.output_tokens !== undefined) out.total_tokens = out.input_tokens + out.output_tokens;
  if (read !== undefined) out.cache_read_input_tokens = read;
  if (write !== undefined) out.cache_creation_input_tokens = write;
  if (num(result.total_cost_usd) !== undefined) out.cost_usd = result.total_cost_usd;
  if (num(result.duration_ms) !== undefined) out.duration_ms = result.duration_ms;
  if (num(result.num_turns) !== undefined) out.num_turns = result.num_turns;
  return Object.keys(out).length ? out : undefined;
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

/**
 * A stateful translator. Text and thinking stream from stream_event deltas; a whole `assistant`
 * message only adds text when its deltas were not seen (CLI without partial messages). Tool use
 * becomes one thinking line. Sub-agent (parent_tool_use_id) text stays out of the reply.
 */
export function createClaudeTranslator(emit, { cwd = process.cwd() } = {}) {
  const streamed = new Set(); // message ids whose content arrived as deltas
  let currentMessageId = null;
  let outputSoFar = '';
  let thinkingEndsLine = true;
  let pendingBreak = false;

  const output = (text) => {
    if (!text) return;
    if (pendingBreak && outputSoFar && !outputSoFar.endsWith('\n\n')) text = (outputSoFar.endsWith('\n') ? '\n' : '\n\n') + text;
    pendingBreak = false;
    outputSoFar += text;
    emit.partial(text, 'output');
  };
  const thinking = (text) => {
    if (!text) return;
    thinkingEndsLine = text.endsWith('\n');
    emit.partial(text, 'thinking');
  };
  const thinkingLine = (line) => {
    thinking(`${thinkingEndsLine ? '' : '\n'}${line}\n`);
  };

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
      else if (e.content_block?.type === 'thinking' && !thinkingEndsLine) thinking('\n');
      return;
    }
    if (e.type === 'content_block_delta') {
      const d = e.delta ?? {};
      if (d.type === 'text_delta') output(d.text);
      else if (d.type === 'thinking_delta') thinking(d.thinking);
    }
  }

  function onAssistant(ev) {
    const msg = ev.message ?? {};
    const blocks = Array.isArray(msg.content) ? msg.content : [];
    const fromSubagent = typeof ev.parent_tool_use_id === 'string' && ev.parent_tool_use_id !== '';
    const sawDeltas = msg.id != null && streamed.has(msg.id);
    for (const b of blocks) {
      if (!b || typeof b !== 'object') continue;
      if (b.type === 'tool_use') thinkingLine(describeTool(b.name, b.input, cwd));
      else if (fromSubagent || sawDeltas) continue;
      else if (b.type === 'text') { pendingBreak = true; output(b.text); }
      else if (b.type === 'thinking') thinking(b.thinking);
    }
  }

  return {
    /** Handle one CLI event; returns 'result' | 'error' when it ended the turn. */
    handle(ev) {
      if (typeof ev.session_id === 'string') emit.noteSessionId(ev.session_id);
      switch (ev.type) {
        case 'system': return null;
        case 'stream_event':
          if (typeof ev.parent_tool_use_id === 'string' && ev.parent_tool_use_id !== '') return null;
          onStreamEvent(ev);
          return null;
        case 'assistant': onAssistant(ev); return null;
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
