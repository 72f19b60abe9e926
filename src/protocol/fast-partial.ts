/**
 * The runner's fast path for the line an agent sends most: `{"type":"partial","text":"…"}`,
 * exactly so (no whitespace, no other field, these two keys in this order). For that shape the
 * text is cut out of the line and its few escapes decoded here: no JSON.parse, no regex, and no
 * allocation beyond the text. Every scan is an indexOf of one character (memchr speed): for the
 * quotes and backslashes of the line, and, once per chunk (ControlScan), for the raw control
 * characters JSON forbids in a string.
 *
 * Exact, or it declines: whenever it returns a string, `JSON.parse(line)` is
 * `{type: "partial", text}` with that very text and no other key. Anything else (another key, a
 * duplicate key, whitespace, an invalid escape, a raw control character) returns undefined and
 * goes through JSON.parse. Duplicate keys cannot slip through: JSON.parse keeps the last of
 * equal keys, and this shape has no room for a second key after `text`, because the text
 * literal must end at the line's closing `"}` (every `"` before it escaped).
 * test/unit/protocol/fast-partial.test.ts checks the agreement with fast-check.
 */

const PREFIX = '{"type":"partial","text":"';
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;
const LETTER_U = 0x75;
/** The character each one-letter JSON escape stands for, by the letter's code. */
const ESCAPED: string[] = [];
for (const [letter, char] of [['"', '"'], ['\\', '\\'], ['/', '/'], ['b', '\b'], ['f', '\f'], ['n', '\n'], ['r', '\r'], ['t', '\t']] as const) ESCAPED[letter.charCodeAt(0)] = char;
/**
 * Beyond this many escapes JSON.parse of the literal decodes faster: each escape decoded here
 * joins a piece onto a rope, and thousands of pieces cost more to flatten than JSON.parse's one
 * copy. Text as agents stream it has a newline or two per partial.
 */
const MAX_JS_ESCAPES = 16;
const CONTROL_CHARS = Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c));

/**
 * Where the raw control characters (U+0000..U+001F) of one text are, found forward and lazily:
 * for each of them the next position at or after the line asked about, so that a chunk of
 * thousands of lines costs one indexOf per control character, not a scan per line (but for \n,
 * found once per line: the one that ends it). Lines of one text are asked about in order; a new
 * text (the next chunk), or a line before the last one, starts over.
 */
export class ControlScan {
  private text: string | undefined;
  private lastStart = 0;
  private readonly next = new Float64Array(0x20);
  private soonest = -1;

  /** Whether text[start, end) holds no raw control character. */
  clear(text: string, start: number, end: number): boolean {
    if (text !== this.text || start < this.lastStart) {
      this.text = text;
      this.next.fill(-1);
      this.soonest = -1;
    }
    this.lastStart = start;
    if (this.soonest < start) {
      let soonest = Infinity;
      for (let c = 0; c < 0x20; c++) {
        let at = this.next[c]!;
        if (at < start) {
          const found = text.indexOf(CONTROL_CHARS[c]!, start);
          at = found === -1 ? Infinity : found;
          this.next[c] = at;
        }
        if (at < soonest) soonest = at;
      }
      this.soonest = soonest;
    }
    return this.soonest >= end;
  }
}

/** The text of a line of exactly the dominant partial shape, or undefined (use JSON.parse). */
export function fastPartialText(line: string): string | undefined {
  return fastPartialTextIn(line, 0, line.length, new ControlScan());
}

/**
 * fastPartialText of the line text[start, end), read where it sits in the chunk it came in;
 * `controls` is the chunk's ControlScan.
 */
export function fastPartialTextIn(text: string, start: number, end: number, controls: ControlScan): string | undefined {
  if (end - start < PREFIX.length + 2 || text.charCodeAt(end - 1) !== CLOSE_BRACE || text.charCodeAt(end - 2) !== QUOTE) return undefined;
  if (!text.startsWith(PREFIX, start) || !controls.clear(text, start, end)) return undefined;
  return literalText(text, start + PREFIX.length, end - 2);
}

/**
 * The string whose literal runs from `from` to the quote at `close`, when that is one valid
 * JSON string literal (no control characters: the caller checked); else undefined.
 */
function literalText(text: string, from: number, close: number): string | undefined {
  // The first quote at or after `from`: it must be `close` unless an escape consumes it.
  let quote = text.indexOf('"', from);
  let escape = text.indexOf('\\', from);
  if (escape === -1 || escape > close) return quote === close ? text.slice(from, close) : undefined;
  const start = from;
  let decoded = '';
  for (let left = MAX_JS_ESCAPES; ; left--) {
    const stop = escape === -1 || escape > close ? close : escape;
    if (quote < stop) return undefined; // an unescaped quote before the closing one
    if (stop === close) return decoded + text.slice(from, close);
    if (left === 0) return parseLiteral(text, start - 1, close + 1);
    decoded += text.slice(from, escape);
    const letter = text.charCodeAt(escape + 1);
    if (letter === LETTER_U) {
      if (escape + 5 >= close || !isHex4(text, escape + 2)) return undefined;
      decoded += String.fromCharCode(Number.parseInt(text.slice(escape + 2, escape + 6), 16));
      from = escape + 6;
    } else {
      const char = escape + 1 < close ? ESCAPED[letter] : undefined; // a backslash right before `close` escapes it
      if (char === undefined) return undefined;
      decoded += char;
      from = escape + 2;
    }
    if (quote < from) quote = text.indexOf('"', from);
    escape = text.indexOf('\\', from);
  }
}

function parseLiteral(text: string, start: number, end: number): string | undefined {
  try {
    return JSON.parse(text.slice(start, end)) as string;
  } catch {
    return undefined;
  }
}

function isHex4(text: string, at: number): boolean {
  for (let i = at; i < at + 4; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}
