/**
 * Split markdown text into parts of at most `maxChars`, at the cleanest boundary available
 * (paragraph, then line, then word, a hard cut only as a last resort). A code fence cut by a
 * split is closed at the end of its part and reopened, with the same info string, at the
 * start of the next. Nothing else is added, removed or reordered.
 */

/** One part, with the fence lines the splitter added (so callers and tests can strip them). */
export interface SplitPart {
  text: string;
  /** Fence opener line added at the start ('' when none), including its newline. */
  prefix: string;
  /** Fence closer added at the end ('' when none), including the newline before it when one was needed. */
  suffix: string;
}

interface OpenFence {
  /** The opener line as written, trimmed (e.g. "```ts"). */
  line: string;
  char: '`' | '~';
  len: number;
}

interface LineInfo {
  start: number;
  /** Index of the line's end (its '\n', or text.length). */
  end: number;
  isFence: boolean;
  /** Fence state before this line. */
  before: OpenFence | null;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Scan fence openers/closers line by line (CommonMark-ish: ``` or ~~~, closer at least as long). */
function scanLines(text: string): LineInfo[] {
  const lines: LineInfo[] = [];
  let open: OpenFence | null = null;
  let start = 0;
  while (start <= text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    const raw = text.slice(start, end);
    const m = FENCE.exec(raw);
    let isFence = false;
    const before = open;
    if (m) {
      const marker = m[1]!;
      const char = marker[0] as '`' | '~';
      const rest = m[2]!;
      if (open === null) {
        if (!(char === '`' && rest.includes('`'))) {
          open = { line: raw.trim(), char, len: marker.length };
          isFence = true;
        }
      } else if (char === open.char && marker.length >= open.len && rest.trim() === '') {
        open = null;
        isFence = true;
      }
    }
    lines.push({ start, end, isFence, before });
    if (nl === -1) break;
    start = nl + 1;
  }
  return lines;
}

/** Index of the line containing position p (p at a line start belongs to that line). */
function lineAt(lines: LineInfo[], p: number): number {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines[mid]!.start <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Fence state at a cut position: what is open for text after p. */
function stateAt(lines: LineInfo[], p: number): OpenFence | null {
  return lines[lineAt(lines, p)]!.before;
}

/** The best cut c in (start, limit], or -1. Separators stay with the first part. */
function findCut(text: string, lines: LineInfo[], start: number, limit: number): number {
  const budget = limit - start;
  const minGood = start + Math.max(1, Math.floor(budget * 0.3));
  const window = text.slice(start, limit);
  const candidates: Array<(min: number) => number> = [
    (min) => lastSep(window, '\n\n', start, min),
    (min) => lastSep(window, '\n', start, min),
    (min) => lastWordBreak(window, start, min, lines),
  ];
  for (const min of [minGood, start + 1]) {
    for (const find of candidates) {
      const c = find(min);
      if (c !== -1) return c;
    }
  }
  return -1;
}

function lastSep(window: string, sep: string, offset: number, min: number): number {
  const i = window.lastIndexOf(sep, window.length - sep.length);
  if (i === -1) return -1;
  const c = offset + i + sep.length;
  return c >= min ? c : -1;
}

/** Last space/tab break that is not inside a fence line. */
function lastWordBreak(window: string, offset: number, min: number, lines: LineInfo[]): number {
  for (let i = window.length - 1; i >= 0; i--) {
    const c = offset + i + 1;
    if (c < min) return -1;
    if (window[i] === ' ' || window[i] === '\t') {
      if (!lines[lineAt(lines, c)]!.isFence) return c;
    }
  }
  return -1;
}

/** A hard cut at or before `limit`, never splitting a surrogate pair, avoiding the inside of a fence line. */
function hardCut(text: string, lines: LineInfo[], start: number, limit: number): number {
  let c = limit;
  const line = lines[lineAt(lines, c)]!;
  if (line.isFence && c > line.start && line.start > start) c = line.start;
  const code = text.charCodeAt(c - 1);
  if (c - 1 > start && code >= 0xd800 && code <= 0xdbff) c--;
  return c;
}

/** Fence repair needs room for the opener, a closer and some text; without it, cuts stay plain. */
function canRepair(f: OpenFence, maxChars: number): boolean {
  return maxChars - (f.line.length + 1) - (f.len + 1) >= 8;
}

/** Split into parts with the fence lines added by the splitter reported separately. */
export function splitMessageParts(text: string, maxChars: number): SplitPart[] {
  if (!Number.isFinite(maxChars) || maxChars < 1) throw new RangeError(`maxChars must be a positive number, got ${maxChars}`);
  if (text.length <= maxChars) return [{ text, prefix: '', suffix: '' }];
  const lines = scanLines(text);
  const parts: SplitPart[] = [];
  let start = 0;
  let open: OpenFence | null = null;
  while (start < text.length) {
    const prefix = open ? `${open.line}\n` : '';
    if (prefix.length + text.length - start <= maxChars) {
      parts.push({ text: prefix + text.slice(start), prefix, suffix: '' });
      break;
    }
    let limit = start + maxChars - prefix.length;
    let cut: number;
    let suffix: string;
    let after: OpenFence | null;
    for (;;) {
      cut = findCut(text, lines, start, limit);
      if (cut === -1) cut = hardCut(text, lines, start, limit);
      after = stateAt(lines, cut);
      suffix = after !== null && canRepair(after, maxChars) ? (text[cut - 1] === '\n' ? '' : '\n') + after.char.repeat(after.len) : '';
      if (prefix.length + (cut - start) + suffix.length <= maxChars || limit <= start + 1) break;
      limit = Math.max(start + 1, Math.min(limit - 1, start + maxChars - prefix.length - suffix.length));
    }
    parts.push({ text: prefix + text.slice(start, cut) + suffix, prefix, suffix });
    open = suffix ? after : null;
    start = cut;
  }
  return parts;
}

/** Split `text` into parts of at most `maxChars` characters (see the file header). */
export function splitMessage(text: string, maxChars: number): string[] {
  return splitMessageParts(text, maxChars).map((p) => p.text);
}

/**
 * The code fence open at position `p` of `text` (what text after `p` is inside), as the lines
 * that close it and reopen it; null when no fence is open there.
 */
export function openFenceAt(text: string, p: number): { opener: string; closer: string } | null {
  const lines = scanLines(text);
  const open = stateAt(lines, Math.max(0, Math.min(p, text.length)));
  return open ? { opener: open.line, closer: open.char.repeat(open.len) } : null;
}

/** `text` with an open code fence at its end closed, and the opener the next part starts with. */
export function closeFences(text: string): { frozen: string; reopen: string } {
  const fence = openFenceAt(text, text.length);
  if (!fence) return { frozen: text, reopen: '' };
  return { frozen: `${text}${text.endsWith('\n') ? '' : '\n'}${fence.closer}`, reopen: `${fence.opener}\n` };
}
