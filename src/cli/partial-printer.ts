import { dimmer, type CliIo } from './io.js';

/**
 * Writes a turn's partials as they stream: thinking dimmed (or to stderr when stdout is not a
 * terminal), and a line break whenever the role changes, so thinking never runs into the answer.
 */
export function createPartialPrinter(io: CliIo, opts: { thinkingToStderr: boolean }) {
  const dim = dimmer(io.stdout, io.env);
  let endsWithNewline = true;
  let lastRole: 'thinking' | 'output' | undefined;
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
      out(role === 'thinking' ? dim(chunk.text) : chunk.text);
    },
    /** End the current line, if any. */
    endLine(): void {
      if (!endsWithNewline) out('\n');
    },
  };
}
