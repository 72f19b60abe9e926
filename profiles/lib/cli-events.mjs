// Building blocks for the *-events.mjs translators (CLI events -> wire events): short display
// lines, paths relative to the working folder, thinking lines, usage and error fields.
import { relative, isAbsolute } from 'node:path';

const MAX_LINE = 160;

/** The first line of `text`, cut to MAX_LINE characters. */
export function short(text) {
  const first = String(text).split('\n')[0].trim();
  return first.length > MAX_LINE ? `${first.slice(0, MAX_LINE - 1)}…` : first;
}

/** A path as shown to the user: relative when inside `cwd`, else as given ('' when not a string). */
export function shownPath(p, cwd) {
  if (typeof p !== 'string' || !p) return '';
  if (!isAbsolute(p) || !cwd) return p;
  const rel = relative(cwd, p);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
}

/**
 * Thinking partials that remember whether the last one ended a line: `line()` starts on a new
 * line and ends one (tool activity), `text()` streams as given.
 */
export function createThinking(emit) {
  let endsLine = true;
  const text = (t) => {
    if (!t) return;
    endsLine = t.endsWith('\n');
    emit.partial(t, 'thinking');
  };
  return {
    get endsLine() { return endsLine; },
    text,
    line(l) { text(`${endsLine ? '' : '\n'}${l}\n`); },
  };
}

/** The value when it is a finite number, else undefined. */
export function finite(v) {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A wire usage object from [field, value] pairs, keeping finite numbers in order; undefined when none. */
export function usageFrom(pairs) {
  const out = {};
  for (const [field, value] of pairs) if (finite(value) !== undefined) out[field] = value;
  return Object.keys(out).length ? out : undefined;
}

/** The message of an error field that is an object with .message or a string; '' otherwise. */
export function errorText(e) {
  return (e && typeof e === 'object' ? e.message : typeof e === 'string' ? e : '') || '';
}
