import { dimmer, type CliIo } from './io.js';

/** More than any plan the agent shows (the bridge keeps as much: bridge/turns/ask-person.ts). */
const SAID_MAX_CHARS = 64_000;

/**
 * Writes a turn's partials as they stream: thinking dimmed (or to stderr when stdout is not a
 * terminal), and a line break whenever the role changes, so thinking never runs into the answer.
 */
export function createPartialPrinter(io: CliIo, opts: { thinkingToStderr: boolean }) {
  const dim = dimmer(io.stdout, io.env);
  let endsWithNewline = true;
  let lastRole: 'thinking' | 'output' | undefined;
  /** The agent's output since the last take(), its last SAID_MAX_CHARS (what a plan card checks: card-prompt.ts). */
  let said = '';
  const out = (text: string): void => {
    if (!text) return;
    io.stdout.write(text);
    endsWithNewline = text.endsWith('\n');
  };
  return {
    dim,
    out,
    partial(chunk: { text: string; role?: string }): void {
      const role = chunk.role === 'thinking' ? 'thinking' : 'output';
      if (role === 'thinking' && opts.thinkingToStderr) {
        io.stderr.write(chunk.text);
        return;
      }
      if (lastRole !== undefined && lastRole !== role && !endsWithNewline) out('\n');
      lastRole = role;
      if (role === 'output') said = (said + chunk.text).slice(-SAID_MAX_CHARS);
      out(role === 'thinking' ? dim(chunk.text) : chunk.text);
    },
    /** The agent's output since the last call (at a permission request: a plan it already showed is not printed again). */
    takeSaid(): string {
      const s = said;
      said = '';
      return s;
    },
    /** End the current line, if any. */
    endLine(): void {
      if (!endsWithNewline) out('\n');
    },
  };
}
