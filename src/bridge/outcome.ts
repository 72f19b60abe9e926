import type { ReplyOutcome } from '../delivery/types.js';
import type { RunResult } from '../runner/types.js';
import type { Turn } from './turn.js';
import { stopCauseOf } from './turn-phase.js';

export const INTERRUPTED_MESSAGE = 'interrupted: the bridge restarted';

/** How a turn's run ended, as the live reply shows it. */
export function outcomeOf(turn: Turn, result: RunResult): ReplyOutcome {
  if (result.cancelled) return cancelledOutcome(turn);
  if (result.timedOut) return { kind: 'timeout', message: result.error ?? 'the agent took too long and was stopped' };
  if (result.error !== null) return { kind: 'error', message: result.error };
  return { kind: 'success', reply: result.reply };
}

/** Outcome of a turn stopped or interrupted (before it ran, or while it ran). */
export function cancelledOutcome(turn: Turn): ReplyOutcome {
  const cause = stopCauseOf(turn.phase);
  if (cause?.kind === 'interrupted') return { kind: 'interrupted', message: INTERRUPTED_MESSAGE };
  return { kind: 'stopped', by: cause?.by };
}
