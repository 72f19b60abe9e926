/**
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
