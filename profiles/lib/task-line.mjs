// An agent's task list (claude's TodoWrite / TaskCreate, codex's update_plan, gemini's
// write_todos) as one thinking line: "◐ Fixing the bug · ☐ Run the tests · ☑ Read the code".
// The wire has no event for it (its vocabulary is closed), so it is a thinking partial: it
// updates live in the reply's muted line and never lands in the answer.

/** The glyph of each status; the current item (in progress) comes first, then pending, then done. */
export const TASK_GLYPHS = { in_progress: '◐', pending: '☐', completed: '☑' };
const ORDER = ['in_progress', 'pending', 'completed'];

/**
 * Longest line: the bridge shows the tail of the thinking text, cut at its platform's limit
 * (Discord's is the shortest, 150 characters); a line that fits is seen whole, current item first.
 */
export const TASK_LINE_MAX = 140;
const ITEM_MAX = 60;

const cut = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The line for items `[{ text, status }]` (status in_progress | pending | completed; others are
 * left out), or '' when there is nothing to show. Items that do not fit are counted ("· +3").
 */
export function taskLine(items, max = TASK_LINE_MAX) {
  const shown = ORDER.flatMap((s) => items.filter((i) => i.status === s && typeof i.text === 'string' && i.text.trim()));
  if (shown.length === 0) return '';
  const parts = shown.map((i) => `${TASK_GLYPHS[i.status]} ${cut(i.text.trim().split('\n')[0], ITEM_MAX)}`);
  // Every prefix kept leaves room for the count of what follows it.
  const room = (k) => (parts.length - k - 1 > 0 ? ` · +${parts.length - k - 1}`.length : 0);
  let line = cut(parts[0], max - room(0));
  for (let k = 1; k < parts.length; k++) {
    const next = `${line} · ${parts[k]}`;
    if (next.length + room(k) > max) return `${line} · +${parts.length - k}`;
    line = next;
  }
  return line;
}

/** Shows a task list through `thinking` (lib/cli-events.mjs createThinking) when its line changes. */
export function createTaskLine(thinking) {
  let last = '';
  return {
    show(items) {
      const line = taskLine(items);
      if (!line || line === last) return;
      last = line;
      thinking.line(line);
    },
  };
}
