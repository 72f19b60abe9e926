/** Longest tool input shown in a prompt; the agent always gets the full input. */
export const PREVIEW_MAX_CHARS = 2500;

/**
 * A readable preview of a tool input: the command itself for Bash-like tools ({command}),
 * otherwise pretty JSON. Truncated for display only, with a note saying so.
 */
export function formatInputPreview(input: Record<string, unknown>, max = PREVIEW_MAX_CHARS): string {
  let text: string;
  const keys = Object.keys(input);
  if (typeof input.command === 'string' && keys.every((k) => k === 'command' || k === 'description' || k === 'timeout')) {
    text = input.command;
  } else {
    try {
      text = JSON.stringify(input, null, 2) ?? String(input);
    } catch {
      text = String(input);
    }
  }
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut}\n… (truncated for display: ${text.length - max} more characters not shown; the agent receives the full input)`;
}
