/** Fields beside `command` that do not change what a shell command may do. */
const SHELL_SIDE_KEYS = new Set(['command', 'description', 'timeout']);

/**
 * The command of a shell-like tool input: `input.command` whenever it is a string, whatever else
 * the input holds (Claude Code's Bash also sends run_in_background / dangerouslyDisableSandbox).
 * Thread rules read inputs more strictly (permission-rules.ts: only known side fields).
 */
function shellCommandOf(input: Record<string, unknown>): string | undefined {
  return typeof input.command === 'string' ? input.command : undefined;
}

/**
 * A plain shell input ({command} plus at most a description and a timeout): shown and edited as
 * the bare command. Any other field (dangerouslyDisableSandbox, ...) keeps the input shown and
 * edited as JSON, so an approver sees it.
 */
export function plainCommandOf(input: Record<string, unknown>): string | undefined {
  const command = shellCommandOf(input);
  if (command === undefined) return undefined;
  return Object.keys(input).every((k) => SHELL_SIDE_KEYS.has(k)) ? command : undefined;
}

/** The whole input as people read it: the command for plain shell inputs, pretty JSON otherwise. */
export function inputAsText(input: Record<string, unknown>): string {
  const command = plainCommandOf(input);
  if (command !== undefined) return command;
  try {
    return JSON.stringify(input, null, 2) ?? String(input);
  } catch {
    return String(input);
  }
}

/** Longest tool input shown in a prompt; the agent always gets the full input. */
export const PREVIEW_MAX_CHARS = 2500;

/**
 * A readable preview of a tool input: the command itself for Bash-like tools ({command}),
 * otherwise pretty JSON. Truncated for display only, with a note saying so.
 */
export function formatInputPreview(input: Record<string, unknown>, max = PREVIEW_MAX_CHARS): string {
  const text = inputAsText(input);
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut}\n… (truncated for display: ${text.length - max} more characters not shown; the agent receives the full input)`;
}
