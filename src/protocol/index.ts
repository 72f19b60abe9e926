/**
 * The AgentProc wire protocol 0.4 (docs/profiles.md says what an agent reads and writes): its
 * types (types.ts), one stdout line classified by the wire rules (classify.ts, with the fast path
 * for the dominant partial line), the turn line written to stdin and the session-id rules
 * (turn.ts). Pure functions: no processes, no I/O.
 */
export * from './types.js';
export { classifyLine, classifyWithJsonParse, fastPartialText, partialTextIn } from './classify.js';
export { buildTurn, permissionResponseLine, resumableSessionIdProblem, sessionIdProblem, turnHasContent } from './turn.js';
