export * from './types.js';
export { classifyLine, classifyWithJsonParse } from './classify.js';
export { fastPartialText, partialTextIn } from './fast-partial.js';
export { sessionIdProblem, isValidSessionId, resumableSessionIdProblem } from './session-id.js';
export { buildTurn, turnHasContent, permissionResponseLine } from './turn.js';
