/**
 * The runner's fast path for the line an agent sends most: `{"type":"partial","text":"…"}`,
 * exactly so (no whitespace, no other field, these two keys in this order). For that shape the
 * text is cut out of the line (or, when it has escapes, its string literal alone is parsed),
 * which costs about half of JSON.parse of the whole object and allocates nothing but the text.
 *
 * Exact, or it declines: whenever `fastPartialText(line)` returns a string, `JSON.parse(line)`
 * is `{type: "partial", text}` with that very text and no other key. Anything else (another
 * key, a duplicate key, whitespace, an invalid escape, a raw control character) returns
 * undefined and goes through JSON.parse. Duplicate keys cannot slip through: JSON.parse keeps
 * the last of equal keys, and this shape has no room for a second key after `text`, because
 * the text literal must end at the line's closing `"}` (every `"` before it escaped).
 * test/unit/protocol/fast-partial.test.ts checks the agreement with fast-check.
 */

const PREFIX = '{"type":"partial","text":"';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;
/**
 * The whole shape when the text has no escape: no quote, no backslash and no raw control
 * character (JSON forbids U+0000..U+001F unescaped) between the prefix and the closing `"}`.
 * One regex pass over the line is cheaper than a loop of charCodeAt in JS.
 */
const PLAIN_PARTIAL = /^\{"type":"partial","text":"[^"\\\u0000-\u001f]*"\}$/;

/** The text of a line of exactly the dominant partial shape, or undefined (use JSON.parse). */
export function fastPartialText(line: string): string | undefined {
  const start = PREFIX.length;
  const end = line.length - 2; // where the closing quote of the text must be
  if (end < start || line.charCodeAt(end + 1) !== CLOSE_BRACE || line.charCodeAt(end) !== QUOTE) return undefined;
  const backslash = line.indexOf('\\', start);
  if (backslash === -1) return PLAIN_PARTIAL.test(line) ? line.slice(start, end) : undefined;
  if (!line.startsWith(PREFIX)) return undefined;
  // Escapes. Every quote before `end` must be escaped (an odd run of backslashes before it); an
  // unescaped one ends the literal early, so something follows it: decline (cheaper than the
  // exception JSON.parse would throw for a line with more fields, such as a role).
  for (let q = line.indexOf('"', start); q < end; q = line.indexOf('"', q + 1)) {
    let k = q - 1;
    while (line.charCodeAt(k) === BACKSLASH) k--;
    if (((q - 1 - k) & 1) === 0) return undefined;
  }
  // JSON.parse of the literal alone decodes the escapes exactly and rejects invalid ones (and
  // raw control characters, and a closing quote that is itself escaped).
  try {
    return JSON.parse(line.slice(start - 1, end + 1)) as string;
  } catch {
    return undefined;
  }
}
