/**
 * The AgentProc wire protocol 0.4 (docs/profiles.md says what an agent reads and writes): its
 * types (types.ts), one stdout line classified by the wire rules (classify.ts, with the fast path
 * for the dominant partial line in fast-partial.ts), the turn line written to stdin (turn.ts) and
 * the session-id rules (session-id.ts). Pure functions: no processes, no I/O.
 */
export * from './types.js';
export { classifyLine, classifyWithJsonParse } from './classify.js';
export { fastPartialText, partialTextIn } from './fast-partial.js';
export { sessionIdProblem, isValidSessionId, resumableSessionIdProblem } from './session-id.js';
export { buildTurn, turnHasContent, permissionResponseLine } from './turn.js';
