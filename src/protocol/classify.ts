import type { AgentEvent, Classified, PermissionRequest, Usage } from './types.js';
import { fastPartialText } from './fast-partial.js';
import { sessionIdProblem } from './session-id.js';

const REQUEST_ID_FORBIDDEN = /[\s\u0000-\u001f\u007f-\u009f]/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function usageOf(obj: Record<string, unknown>): Usage | undefined {
  return isObject(obj.usage) ? obj.usage : undefined;
}

const NO_WARNINGS: readonly string[] = Object.freeze([]);

/**
 * Classify one stdout line (without its line terminator) per wire 0.4.
 * Pure: the runner applies the turn-level rules (first session wins, one result, error is terminal).
 * The dominant partial shape takes the fast path; the result is the same as classifyWithJsonParse.
 */
export function classifyLine(line: string): Classified {
  const text = fastPartialText(line);
  if (text !== undefined) return { event: { type: 'partial', text }, warnings: NO_WARNINGS };
  return classifyWithJsonParse(line);
}

/** The reference classification: JSON.parse of the whole line, then the wire-0.4 rules. */
export function classifyWithJsonParse(line: string): Classified {
  const warnings: string[] = [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { event: { type: 'malformed', reason: 'not valid JSON' }, warnings };
  }
  if (!isObject(parsed)) {
    return { event: { type: 'malformed', reason: `JSON ${Array.isArray(parsed) ? 'array' : typeof parsed}, not an object` }, warnings };
  }

  let sessionId: string | undefined;
  let droppedSessionId: Classified['droppedSessionId'];
  if ('session_id' in parsed && parsed.session_id !== undefined) {
    const problem = sessionIdProblem(parsed.session_id);
    if (problem === null) sessionId = parsed.session_id as string;
    else droppedSessionId = { value: parsed.session_id, reason: problem };
  }
  // Hot path (one call per stdout line): no closures or spreads here.
  const type = parsed.type;
  let event: AgentEvent;
  switch (type) {
    case 'partial': {
      const text = typeof parsed.text === 'string' ? parsed.text : '';
      if (parsed.usage !== undefined) warnings.push('usage on a partial event is ignored');
      const partial: Extract<AgentEvent, { type: 'partial' }> = { type: 'partial', text };
      if (typeof parsed.role === 'string') partial.role = parsed.role;
      event = partial;
      break;
    }
    case 'result': {
      const result: Extract<AgentEvent, { type: 'result' }> = { type: 'result', text: typeof parsed.text === 'string' ? parsed.text : '' };
      const usage = usageOf(parsed);
      if (usage) result.usage = usage;
      event = result;
      break;
    }
    case 'error': {
      const error: Extract<AgentEvent, { type: 'error' }> = { type: 'error', message: typeof parsed.message === 'string' ? parsed.message : '' };
      const usage = usageOf(parsed);
      if (usage) error.usage = usage;
      event = error;
      break;
    }
    case 'permission_request':
      event = classifyPermissionRequest(parsed);
      break;
    default:
      return {
        event: { type: 'malformed', reason: typeof type === 'string' ? `unknown type "${type.slice(0, 40)}"` : 'missing "type"' },
        warnings,
      };
  }
  if (sessionId !== undefined) (event as { sessionId?: string }).sessionId = sessionId;
  const out: Classified = { event, warnings };
  if (droppedSessionId) out.droppedSessionId = droppedSessionId;
  return out;
}

function classifyPermissionRequest(obj: Record<string, unknown>): AgentEvent {
  const rid = obj.request_id;
  const validRid = typeof rid === 'string' && rid !== '' && !REQUEST_ID_FORBIDDEN.test(rid) ? rid : undefined;
  const problems: string[] = [];
  if (validRid === undefined) problems.push('request_id missing or invalid');
  if (typeof obj.tool_name !== 'string' || obj.tool_name === '') problems.push('tool_name missing');
  if (!isObject(obj.input)) problems.push('input is not an object');
  if (problems.length > 0) {
    // A request_id we can echo back (even an odd one) still gets a deny, so the agent is not left blocked.
    const echoable = typeof rid === 'string' && rid !== '' && !/[\n\r]/.test(rid) ? rid : undefined;
    return { type: 'bad_permission_request', reason: problems.join('; '), ...(echoable ? { requestId: echoable } : {}) };
  }
  const request: PermissionRequest = {
    requestId: validRid as string,
    toolName: obj.tool_name as string,
    input: obj.input as Record<string, unknown>,
    ...(typeof obj.description === 'string' ? { description: obj.description } : {}),
    ...(typeof obj.tool_use_id === 'string' ? { toolUseId: obj.tool_use_id } : {}),
  };
  return { type: 'permission_request', request };
}
