/**
 * One line of an agent's stdout read by the wire-0.4 rules: classifyWithJsonParse (JSON.parse,
 * then the rules) is the reference, and below it the fast path for the line agents send most,
 * `{"type":"partial","text":"…"}`, which answers exactly what JSON.parse would or declines.
 */
import type { AgentEvent, Classified, PermissionRequest, Usage } from './types.js';
import { sessionIdProblem } from './turn.js';

const REQUEST_ID_FORBIDDEN = /[\s\u0000-\u001f\u007f-\u009f]/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function usageOf(obj: Record<string, unknown>): Usage | undefined {
  return isObject(obj.usage) ? obj.usage : undefined;
}

/** A result or error event with the line's usage, when it carries one. */
function withUsage<E extends Extract<AgentEvent, { type: 'result' | 'error' }>>(event: E, obj: Record<string, unknown>): E {
  const usage = usageOf(obj);
  return usage ? { ...event, usage } : event;
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
    case 'result':
      event = withUsage({ type: 'result', text: typeof parsed.text === 'string' ? parsed.text : '' }, parsed);
      break;
    case 'error':
      event = withUsage({ type: 'error', message: typeof parsed.message === 'string' ? parsed.message : '' }, parsed);
      break;
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

/*
 * The runner's fast path for the line an agent sends most: `{"type":"partial","text":"…"}`,
 * exactly so (no whitespace, no other field, these two keys in this order). For that shape one
 * regex checks the whole line against JSON's string-literal grammar and the text is cut out of
 * the line, its escapes (if any) decoded here: no JSON.parse, and no allocation beyond the text.
 *
 * Exact, or it declines: whenever `fastPartialText(line)` returns a string, `JSON.parse(line)`
 * is `{type: "partial", text}` with that very text and no other key. Anything else (another
 * key, a duplicate key, whitespace, an invalid escape, a raw control character) returns
 * undefined and goes through JSON.parse. Duplicate keys cannot slip through: JSON.parse keeps
 * the last of equal keys, and this shape has no room for a second key after `text`, because
 * the text literal must end at the line's closing `"}` (every `"` before it escaped).
 * The line may be given as a range of a larger string (`partialTextIn`): the runner hands over
 * a range of the decoded chunk, so a dominant line is checked in place and never copied.
 * test/unit/protocol/fast-partial.test.ts checks the agreement with fast-check.
 */
const PREFIX_LENGTH = '{"type":"partial","text":"'.length;
/**
 * The whole shape, matched sticky from the line's start (the caller checks it ends at the
 * line's end, which no newline can hide: a literal has no raw control character). The text is JSON's string literal: runs of characters other than a quote, a
 * backslash or a raw control character (U+0000..U+001F), each run after the first opened by one
 * valid escape. Every step is forced (a run cannot start with a backslash), so matching is
 * linear in the line. One native regex pass is cheaper than a charCodeAt loop in JS, and than
 * JSON.parse of the literal (which copies the text once more).
 */
const SHAPE = /\{"type":"partial","text":"[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*"\}/y;
/**
 * A run of whole lines of that shape with a non-empty text, each ended by "\n" or "\r\n" (the
 * splitter strips one "\r"), matched sticky: as many as follow. The string-literal grammar is
 * SHAPE's, so each step stays forced and the match linear. For a caller that drops such lines
 * (their text past the reply cap) and so need not see them one by one: one native pass over a
 * chunk instead of a call, a check and a regex start per line.
 */
const RUN = /(?:\{"type":"partial","text":"(?!")[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*"\}\r?\n)*/y;
/** The character each one-letter JSON escape stands for, by the letter's code. */
const ESCAPED: string[] = [];
for (const [letter, char] of [['"', '"'], ['\\', '\\'], ['/', '/'], ['b', '\b'], ['f', '\f'], ['n', '\n'], ['r', '\r'], ['t', '\t']] as const) ESCAPED[letter.charCodeAt(0)] = char;
const LETTER_U = 0x75;
/**
 * Beyond this many escapes JSON.parse of the literal (already checked valid) decodes faster:
 * each decoded escape here joins a piece onto a rope, and thousands of pieces cost more to
 * flatten than JSON.parse's one copy. Text as agents stream it has a newline or two per partial.
 */
const MAX_JS_ESCAPES = 16;

/** The text of a line of exactly the dominant partial shape, or undefined (use JSON.parse). */
export function fastPartialText(line: string): string | undefined {
  return partialTextIn(line, 0, line.length);
}

/** fastPartialText of the line text[start, end), without copying the line. */
export function partialTextIn(text: string, start: number, end: number): string | undefined {
  return isPartialLine(text, start, end) ? decodeLiteral(text, start + PREFIX_LENGTH, end - 2) : undefined;
}

/**
 * Whether the line text[start, end) is exactly the dominant partial shape, its text not decoded:
 * for a caller that will drop the text anyway. When true, the text is empty exactly when the
 * line is `{"type":"partial","text":""}` (every escape decodes to at least one character).
 */
export function isPartialLine(text: string, start: number, end: number): boolean {
  // A cheap look at the last two characters first: most other lines end otherwise.
  if (end - start < EMPTY_PARTIAL_LINE_LENGTH || text.charCodeAt(end - 1) !== 0x7d || text.charCodeAt(end - 2) !== 0x22) return false;
  SHAPE.lastIndex = start;
  try {
    return SHAPE.test(text) && SHAPE.lastIndex === end;
  } catch {
    return false; // the regex engine's backtrack stack, on a huge line of escapes: JSON.parse copes
  }
}

/**
 * Where the first line in text[start…] that is not a newline-ended dominant partial with
 * non-empty text begins: `start` itself when the line there is not one. Every line passed over
 * is one isPartialLine accepts (once its "\r" is stripped), its text non-empty.
 */
export function skipPartialLines(text: string, start: number): number {
  RUN.lastIndex = start;
  try {
    return RUN.test(text) ? RUN.lastIndex : start;
  } catch {
    return start; // the backtrack stack again (see isPartialLine): the lines go one by one
  }
}

/** The length of `{"type":"partial","text":""}`: an isPartialLine of this length has an empty text. */
export const EMPTY_PARTIAL_LINE_LENGTH = PREFIX_LENGTH + 2;

/**
 * The characters line[start, end) of a string literal SHAPE has checked, escapes decoded.
 * The literal is cut out first: it is the answer when it has no escape, and it bounds the
 * search for backslashes (indexOf has no end, and `line` may be a whole chunk of lines).
 */
function decodeLiteral(line: string, start: number, end: number): string {
  const literal = line.slice(start, end);
  let escape = literal.indexOf('\\');
  if (escape === -1) return literal;
  let text = '';
  let from = 0;
  let left = MAX_JS_ESCAPES;
  do {
    if (--left < 0) return JSON.parse(line.slice(start - 1, end + 1)) as string;
    text += literal.slice(from, escape);
    const letter = literal.charCodeAt(escape + 1);
    if (letter === LETTER_U) {
      text += String.fromCharCode(Number.parseInt(literal.slice(escape + 2, escape + 6), 16));
      from = escape + 6;
    } else {
      text += ESCAPED[letter]!;
      from = escape + 2;
    }
    escape = literal.indexOf('\\', from);
  } while (escape !== -1);
  return text + literal.slice(from);
}
