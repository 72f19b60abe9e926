/**
 * A turn's usage as the bridge reads it from `result.usage` (the wire protocol's "Optional usage on
 * terminal events"): the numbers it counts and the muted line a finished reply ends with. The
 * object is the agent's and forward-compatible, so anything that is not a finite number >= 0 is
 * left out rather than guessed.
 */
import type { Usage } from '../../protocol/types.js';

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  /** input + output, or the agent's total_tokens when it gave only that. */
  totalTokens: number;
  /** Only when the agent reported it (the wire protocol: bridges without a pricing source must not guess). */
  costUsd?: number;
}

function count(usage: Usage, key: string): number | undefined {
  const v = usage[key];
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** The numbers of `result.usage`; undefined when it holds neither tokens nor a cost. */
export function readUsage(usage: Usage | undefined): TurnUsage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const input = count(usage, 'input_tokens');
  const output = count(usage, 'output_tokens');
  const total = count(usage, 'total_tokens');
  const cost = count(usage, 'cost_usd');
  if (input === undefined && output === undefined && total === undefined && cost === undefined) return undefined;
  const inputTokens = Math.round(input ?? 0);
  const outputTokens = Math.round(output ?? 0);
  return {
    inputTokens,
    outputTokens,
    totalTokens: input === undefined && output === undefined ? Math.round(total ?? 0) : inputTokens + outputTokens,
    ...(cost !== undefined ? { costUsd: cost } : {}),
  };
}

const tokens = (n: number): string => n.toLocaleString('en-US');

/** Dollars as people read them: cents from $1 up, four places below (a short turn costs fractions of a cent). */
export function formatCost(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/** "1,234 tokens in · 567 out · $0.0123": the muted last line of a finished reply. */
export function usageLine(usage: TurnUsage): string {
  const parts: string[] = [];
  if (usage.inputTokens > 0 || usage.outputTokens > 0) parts.push(`${tokens(usage.inputTokens)} tokens in · ${tokens(usage.outputTokens)} out`);
  else if (usage.totalTokens > 0) parts.push(`${tokens(usage.totalTokens)} tokens`);
  if (usage.costUsd !== undefined) parts.push(formatCost(usage.costUsd));
  return parts.join(' · ');
}
