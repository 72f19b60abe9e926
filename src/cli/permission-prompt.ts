/**
 * Questions on the terminal, for every command that asks one: `run` and `chat` (an agent's
 * permission request) and `allow` (a pairing code). One reader, so each answers the same way:
 * y / yes allows; anything else, the end of input or a turn that ended first denies. An agent's
 * question or plan (card-words.ts isCardTool) is not a y/N: card-prompt.ts asks it as the bridge's
 * cards do, loaded only then.
 */
import { isCardTool } from '../card-words.js';
import type { PermissionDecision, PermissionRequest } from '../protocol/types.js';
import type { CliIo } from './io.js';
import { withLines, type AskOptions } from './line-queue.js';

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

/** Ask `question` and read one line: 'yes', 'no', or 'no-answer' (input ended, or `signal` aborted first). */
export async function askYesNo(io: CliIo, question: string, opts: AskOptions): Promise<YesNo> {
  if (opts.signal?.aborted) return 'no-answer';
  opts.out.write(question);
  const answer = await withLines(io.stdin, opts, (lines) => lines.next(opts.signal));
  return answer === null ? 'no-answer' : isYes(answer) ? 'yes' : 'no';
}

export interface PermissionAskOptions extends AskOptions {
  /** The runner's: stops the turn's timeout while a person answers a question or reads a plan (runner/turn-clock.ts). */
  holdClock?: () => () => void;
  /** The agent's output since its last request: a plan it already showed is not printed again. */
  said?: string;
}

/** How a request was answered: y/N, or a card (which said its own outcome). */
export type Answer = YesNo | 'card';

const TURN_ENDED: PermissionDecision = { behavior: 'deny', message: 'the turn ended before a decision' };

/** An agent's permission request answered on the terminal (`where`: "on the terminal", "in chat"): what was typed, and what the agent gets. */
export async function askPermission(io: CliIo, req: PermissionRequest, where: string, opts: PermissionAskOptions): Promise<{ answer: Answer; decision: PermissionDecision }> {
  if (isCardTool(req.toolName)) {
    const { askCard } = await import('./card-prompt.js');
    const asked = await askCard(io, req, opts);
    if (asked === 'turn-ended') return { answer: 'no-answer', decision: TURN_ENDED };
    // A question not in claude's shape is an ordinary prompt, as in the bridge (cards.ts cardOf).
    if (asked !== 'not-a-card') return { answer: 'card', decision: asked };
  }
  opts.out.write(`\n${describePermissionRequest(req)}\n`);
  const answer = await askYesNo(io, 'Allow? [y/N] ', opts);
  const decision: PermissionDecision = answer === 'yes' ? { behavior: 'allow' }
    : answer === 'no' ? { behavior: 'deny', message: `denied ${where}` }
    : opts.signal?.aborted ? TURN_ENDED : { behavior: 'deny', message: 'no answer (input ended)' };
  return { answer, decision };
}
