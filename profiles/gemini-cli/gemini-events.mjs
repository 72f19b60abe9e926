// Gemini CLI `--output-format stream-json` events -> AgentProc wire 0.4 events.
// stream-json has no thinking events: tool calls become short thinking lines.
import { short, shownPath, createThinking, usageFrom, errorText } from '../lib/cli-events.mjs';
import { createTaskLine } from '../lib/task-line.mjs';

/** One short line for a gemini tool call; never the raw parameters. */
export function describeGeminiTool(name, params, cwd = process.cwd()) {
  const p = params && typeof params === 'object' ? params : {};
  const file = shownPath(p.file_path ?? p.absolute_path ?? p.path, cwd);
  switch (name) {
    case 'run_shell_command': return p.command ? `Running shell: ${short(p.command)}` : 'Running a shell command';
    case 'read_file': return file ? `Reading ${file}` : 'Reading a file';
    case 'read_many_files': return 'Reading files';
    case 'write_file': return file ? `Writing ${file}` : 'Writing a file';
    case 'replace': case 'edit': return file ? `Editing ${file}` : 'Editing a file';
    case 'list_directory': return file ? `Listing ${file}` : 'Listing a directory';
    case 'glob': return p.pattern ? `Finding files: ${short(p.pattern)}` : 'Finding files';
    case 'search_file_content': case 'grep': return p.pattern ? `Searching for: ${short(p.pattern)}` : 'Searching';
    case 'google_web_search': return p.query ? `Searching the web: ${short(p.query)}` : 'Searching the web';
    case 'web_fetch': return 'Fetching a web page';
    case 'save_memory': return 'Saving a memory';
    default: return `Using ${short(name ?? 'a tool')}`;
  }
}

/**
 * write_todos parameters ({todos: [{description, status}]}, gemini 0.61, offered to gemini 2
 * models) as task-line items. Cancelled items are left out; blocked ones count as pending.
 */
export function writeTodosItems(params) {
  const todos = Array.isArray(params?.todos) ? params.todos : [];
  return todos
    .filter((t) => t && typeof t.description === 'string' && t.status !== 'cancelled')
    .map((t) => ({ text: t.description, status: t.status === 'blocked' ? 'pending' : t.status }));
}

/** result.stats in the wire's convention. */
export function geminiUsage(stats) {
  if (!stats || typeof stats !== 'object') return undefined;
  return usageFrom([
    ['input_tokens', stats.input_tokens],
    ['output_tokens', stats.output_tokens],
    ['total_tokens', stats.total_tokens],
    ['cache_read_input_tokens', stats.cached],
    ['duration_ms', stats.duration_ms],
    ['tool_calls', stats.tool_calls],
  ]);
}

/** `result` is the terminal event; `error` events are warnings unless the stream ends without a result. */
export function createGeminiTranslator(emit, { cwd = process.cwd() } = {}) {
  const tools = new Map();
  let output = '';
  let pendingBreak = false;
  let streamedSinceTool = false;
  let lastError = '';
  const thinking = createThinking(emit);
  const { line } = thinking;
  const taskLine = createTaskLine(thinking);

  return {
    get lastError() { return lastError; },
    /** gemini's retry of a failed API call (reported on stderr) as a thinking line. */
    retrying(attempt, status) {
      line(`${status ? `API error ${status}` : 'API request failed'} (attempt ${attempt}), retrying…`);
    },
    handle(ev) {
      switch (ev.type) {
        case 'init': emit.noteSessionId(ev.session_id); return null;
        case 'message': {
          if (ev.role !== 'assistant' || typeof ev.content !== 'string' || !ev.content) return null;
          // A whole (non-delta) message repeats what its deltas already streamed.
          if (ev.delta === false && streamedSinceTool) return null;
          if (ev.delta !== false) streamedSinceTool = true;
          let text = ev.content;
          if (pendingBreak && output && !output.endsWith('\n\n')) text = (output.endsWith('\n') ? '\n' : '\n\n') + text;
          pendingBreak = false;
          output += text;
          emit.partial(text, 'output');
          return null;
        }
        case 'tool_use':
          tools.set(ev.tool_id, ev.tool_name);
          if (ev.tool_name === 'write_todos') taskLine.show(writeTodosItems(ev.parameters));
          else line(describeGeminiTool(ev.tool_name, ev.parameters, cwd));
          pendingBreak = true;
          streamedSinceTool = false;
          return null;
        case 'tool_result':
          if (ev.status === 'error') {
            const why = ev.error && typeof ev.error === 'object' ? ev.error.message : '';
            line(`${tools.get(ev.tool_id) ?? 'Tool'} failed${why ? `: ${short(why)}` : ''}`);
          }
          return null;
        case 'error':
          if (typeof ev.message === 'string' && ev.message) {
            process.stderr.write(`[gemini ${ev.severity ?? 'error'}] ${ev.message}\n`);
            if (ev.severity !== 'warning') lastError = ev.message;
          }
          return null;
        case 'result': {
          const usage = geminiUsage(ev.stats);
          if (ev.status === 'success') { emit.result(output, usage); return 'result'; }
          const msg = errorText(ev.error) || lastError || `gemini reported ${ev.status ?? 'an error'}`;
          emit.error(String(msg), usage);
          return 'error';
        }
        default: return null;
      }
    },
  };
}
