/**
 * Faults (config mistakes, broken invariants) are thrown as TurnbridgeError with a stable
 * `code`. Outcomes (agent errors, timeouts, 429s, expired clicks) are data, never thrown.
 * Match on `code`, not `instanceof`. Every code here is documented in docs/errors.md
 * (test/unit/meta/errors-doc.test.ts keeps the two in step).
 */
export const ErrorCodes = {
  TB_CONFIG_INVALID: 'The bridge configuration (turnbridge.yaml or environment) is invalid.',
  TB_PROFILE_INVALID: 'A profile YAML file is missing, unreadable or has an invalid field.',
  TB_PROFILE_NO_COMMAND: 'A profile names an executor this bridge does not know and has no command to fall back to.',
  TB_CWD_MISSING: 'The working directory a profile asks for does not exist.',
  TB_CWD_UNSAFE: 'An agent would start in a directory that holds (or is inside) the bridge\'s directory, .env, data dir or secret files.',
  TB_EMPTY_TURN: 'A turn had neither message text nor attachments.',
  TB_RATE_LIMITED: 'A platform answered 429; retry after the given delay.',
  TB_PLATFORM_ERROR: 'A platform API call failed.',
  TB_USAGE: 'The command line was not understood.',
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

export interface ErrorDetails {
  file?: string;
  field?: string;
  found?: unknown;
  expected?: string;
  hint?: string;
  cause?: unknown;
  /** A platform call that can never succeed as made (no such channel, no permission): not retried. */
  permanent?: boolean;
}

export class TurnbridgeError extends Error {
  readonly code: ErrorCode;
  readonly file?: string;
  readonly field?: string;
  readonly found?: unknown;
  readonly expected?: string;
  readonly hint?: string;
  readonly permanent?: boolean;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'TurnbridgeError';
    this.code = code;
    this.file = details.file;
    this.field = details.field;
    this.found = details.found;
    this.expected = details.expected;
    this.hint = details.hint;
    if (details.permanent) this.permanent = true;
  }
}

/** Thrown by Surface operations when the platform answered 429. */
export class RateLimitedError extends TurnbridgeError {
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number, cause?: unknown) {
    super('TB_RATE_LIMITED', message, { cause });
    this.name = 'RateLimitedError';
    this.retryAfterMs = retryAfterMs;
  }
}

export function isTurnbridgeError(e: unknown, code?: ErrorCode): e is TurnbridgeError {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string'
    && (e as { code: string }).code.startsWith('TB_') && (code === undefined || (e as { code: string }).code === code);
}

/** "file: field: found X, expected Y. hint" — one line a person can act on. */
export function describeFieldError(file: string | undefined, field: string, found: unknown, expected: string, hint?: string): string {
  const where = file ? `${file}: ` : '';
  const shown = found === undefined ? 'nothing' : JSON.stringify(found);
  return `${where}field "${field}": found ${shown}, expected ${expected}${hint ? `. ${hint}` : ''}`;
}

/**
 * An error as the two lines a person reads: what is wrong, and `fix`. Messages built by
 * describeFieldError end with their hint; it is cut from the text so that it is printed once.
 */
export function problemLines(err: { message: string; hint?: string }): { text: string; fix?: string } {
  const { message, hint } = err;
  if (!hint) return { text: message };
  const text = message.endsWith(`. ${hint}`) ? message.slice(0, -hint.length - 2) : message.endsWith(hint) ? message.slice(0, -hint.length).trimEnd() : message;
  return { text, fix: hint };
}

/**
 * The yaml package's message for a syntax error, on one line: "Flow sequence ... end with a ] at
 * line 2, column 1:" is followed by a code frame; the trailing colon would point at nothing.
 */
export function yamlErrorText(e: unknown): string {
  const first = ((e as Error)?.message ?? String(e)).split('\n')[0]!.trim();
  return first.replace(/:$/, '');
}

/** The known name closest to `name` (at most 2 edits away), for "did you mean". */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(name, k);
    if (d < bestDistance) { best = k; bestDistance = d; }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}
