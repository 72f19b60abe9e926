// claude's task list from its tool calls, as the items of the task line (lib/task-line.mjs).
// Two vocabularies (schemas: sdk-tools.d.ts of @anthropic-ai/claude-code 2.1.332):
// - TodoWrite {todos: [{content, status, activeForm}]}: the whole list each call
//   (CLAUDE_CODE_ENABLE_TASKS=0);
// - TaskCreate {subject, activeForm?} -> result {task: {id}}, TaskUpdate {taskId, status?,
//   subject?, activeForm?} (status "deleted" removes it), TaskList / TaskGet results: deltas by id.
// A call counts once claude answered it (its tool_result in the stream): TaskCreate's id is only
// known then, and a refused call changes nothing. claude 2.1.332 offers these tools only to
// some models (or with CLAUDE_CODE_ENABLE_TODO_TOOLS=1).

export const TASK_TOOLS = new Set(['TodoWrite', 'TaskCreate', 'TaskUpdate', 'TaskList', 'TaskGet']);

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v) => (typeof v === 'string' ? v : '');

export function createClaudeTasks() {
  const calls = new Map(); // tool_use_id -> { name, input }
  let todos = null; // TodoWrite's list, when that vocabulary is in use
  const tasks = new Map(); // id -> { subject, activeForm, status }

  const upsert = (id, fields) => {
    const key = String(id);
    const t = tasks.get(key) ?? { subject: '', activeForm: '', status: 'pending' };
    for (const f of ['subject', 'activeForm', 'status']) if (str(fields[f])) t[f] = fields[f];
    tasks.set(key, t);
  };

  /** Apply one answered call; true when the list may have changed. */
  function apply(name, input, out) {
    switch (name) {
      case 'TodoWrite': {
        const list = Array.isArray(out?.newTodos) ? out.newTodos : input.todos;
        if (!Array.isArray(list)) return false;
        todos = list.filter(isObject).map((t) => ({ content: str(t.content), activeForm: str(t.activeForm), status: str(t.status) }));
        return true;
      }
      case 'TaskCreate': {
        const id = out?.task?.id;
        if (id === undefined) return false;
        upsert(id, { subject: str(out.task.subject) || input.subject, activeForm: input.activeForm, status: 'pending' });
        return true;
      }
      case 'TaskUpdate': {
        if (out?.success === false || input.taskId === undefined) return false;
        if (input.status === 'deleted') return tasks.delete(String(input.taskId));
        upsert(input.taskId, input);
        return true;
      }
      case 'TaskList':
        if (!Array.isArray(out?.tasks)) return false;
        for (const t of out.tasks) if (isObject(t) && t.id !== undefined) upsert(t.id, t);
        return true;
      case 'TaskGet':
        if (!isObject(out?.task) || out.task.id === undefined) return false;
        upsert(out.task.id, out.task);
        return true;
      default:
        return false;
    }
  }

  return {
    /** A main-thread tool_use block; true when it is a task tool (shown as the task line, not as a tool line). */
    onToolUse(block) {
      if (!TASK_TOOLS.has(block.name)) return false;
      if (typeof block.id === 'string') calls.set(block.id, { name: block.name, input: isObject(block.input) ? block.input : {} });
      return true;
    },
    /** A tool_result for `toolUseId` with claude's structured result; true when the list changed. */
    onToolResult(toolUseId, isError, structured) {
      const call = calls.get(toolUseId);
      if (!call) return false;
      calls.delete(toolUseId);
      return !isError && apply(call.name, call.input, isObject(structured) ? structured : undefined);
    },
    /** The list as task-line items: the current one named by its activeForm ("Running the tests"). */
    items() {
      const list = todos
        ? todos.map((t) => ({ ...t, subject: t.content }))
        // A task updated before this turn saw its subject (an earlier turn made it) shows as "#3".
        : [...tasks.entries()].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })).map(([id, t]) => ({ ...t, subject: t.subject || `#${id}` }));
      return list.map((t) => ({ status: t.status, text: (t.status === 'in_progress' && t.activeForm) || t.subject }));
    },
  };
}
