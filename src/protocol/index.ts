export * from './types.js';
export { classifyLine } from './classify.js';
export { sessionIdProblem, isValidSessionId, resumableSessionIdProblem } from './session-id.js';
export { buildTurn, turnHasContent, permissionResponseLine } from './turn.js';
