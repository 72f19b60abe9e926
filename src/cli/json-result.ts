import type { RunResult } from '../runner/types.js';
import type { PartialChunk, Usage } from '../protocol/types.js';

/**
 * The public, stable `turnbridge run --json` object. Key order and shape are part of the
 * contract: {"reply","session_id","error","exit_code","partials":[{"text","role"?}],"notices":[],"usage"?}.
 * `reply` is the whole text a person sees: the output partials (not "thinking") in order, then
 * the body the agent sent at the end; `partials` keeps the stream as it came.
 * `notices` is always present: what the chat would show beside the reply (an oversized event
 * dropped, the reply truncated), so a script sees why a reply is empty or cut.
 */
export interface JsonRunResult {
  reply: string;
  session_id: string;
  error: string | null;
  exit_code: number;
  partials: PartialChunk[];
  notices: string[];
  usage?: Usage;
}

export function toJsonResult(result: Pick<RunResult, 'reply' | 'sessionId' | 'error' | 'exitCode' | 'partials' | 'notices' | 'usage'>): JsonRunResult {
  const out: JsonRunResult = {
    reply: result.partials.filter((p) => p.role !== 'thinking').map((p) => p.text).join('') + result.reply,
    session_id: result.sessionId,
    error: result.error,
    exit_code: result.exitCode,
    partials: result.partials.map((p) => (typeof p.role === 'string' ? { text: p.text, role: p.role } : { text: p.text })),
    notices: [...result.notices],
  };
  if (result.usage !== undefined) out.usage = result.usage;
  return out;
}

/** The JSON object for a turn that never started (profile could not be loaded). */
export function failedJsonResult(error: string, exitCode: number): JsonRunResult {
  return { reply: '', session_id: '', error, exit_code: exitCode, partials: [], notices: [] };
}
