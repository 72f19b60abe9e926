/**
 * y/N questions on the terminal, for every command that asks one: `run` and `chat` (an agent's
 * permission request) and `allow` (a pairing code). One reader, so each answers the same way:
 * y / yes allows; anything else, the end of input or a turn that ended first denies.
 */
import type { PermissionDecision, PermissionRequest } from '../protocol/types.js';
import type { CliIo } from './io.js';
import { LineQueue } from './line-queue.js';

/** Two lines a person can decide on: the tool, its input (shortened), the agent's description. */
export function describePermissionRequest(req: PermissionRequest): string {
  const input = JSON.stringify(req.input);
  const shown = input.length > 200 ? `${input.slice(0, 200)}…` : input;
  const about = req.description ? `\n  ${req.description}` : '';
  return `Permission request ${req.requestId}: ${req.toolName} ${shown}${about}`;
}

/** y / yes (any case) allows; everything else, including no answer, denies. */
function isYes(answer: string | null): boolean {
  return answer !== null && /^\s*y(es)?\s*$/i.test(answer);
}

export type YesNo = 'yes' | 'no' | 'no-answer';

export interface AskOptions {
  /** Where the question is written (the answer is typed on stdin). */
  out: NodeJS.WritableStream;
  /** The question is moot once this aborts (the turn ended): 'no-answer'. */
  signal?: AbortSignal;
  /** The caller's own lines from stdin (chat reads its messages there too); else a reader is opened for this one answer. */
  lines?: LineQueue;
}

/** Ask `question` and read one line: 'yes', 'no', or 'no-answer' (input ended, or `signal` aborted first). */
export async function askYesNo(io: CliIo, question: string, opts: AskOptions): Promise<YesNo> {
  if (opts.signal?.aborted) return 'no-answer';
  opts.out.write(question);
  let lines = opts.lines;
  let close: (() => void) | undefined;
  if (!lines) {
    // readline loads only when a question is asked: six internal modules every other run skips.
    const { createInterface } = await import('node:readline');
    const rl = createInterface({ input: io.stdin, terminal: false });
    lines = new LineQueue(rl);
    close = () => rl.close();
  }
  try {
    const answer = await lines.next(opts.signal);
    return answer === null ? 'no-answer' : isYes(answer) ? 'yes' : 'no';
  } finally {
    close?.();
  }
}

/** An agent's permission request answered on the terminal (`where`: "on the terminal", "in chat"): what was typed, and what the agent gets. */
export async function askPermission(io: CliIo, req: PermissionRequest, where: string, opts: AskOptions): Promise<{ answer: YesNo; decision: PermissionDecision }> {
  opts.out.write(`\n${describePermissionRequest(req)}\n`);
  const answer = await askYesNo(io, 'Allow? [y/N] ', opts);
  const decision: PermissionDecision = answer === 'yes' ? { behavior: 'allow' }
    : answer === 'no' ? { behavior: 'deny', message: `denied ${where}` }
    : { behavior: 'deny', message: opts.signal?.aborted ? 'the turn ended before a decision' : 'no answer (input ended)' };
  return { answer, decision };
}
