/**
 * session_id on the wire: a non-empty string without path separators or control characters.
 * Returns the reason it is invalid, or null when valid.
 */
export function sessionIdProblem(value: unknown): string | null {
  if (typeof value !== 'string') return `not a string (${value === null ? 'null' : typeof value})`;
  if (value === '') return 'empty string';
  if (value.includes('/') || value.includes('\\')) return 'contains a path separator';
  // C0 controls, DEL and C1 controls.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) return 'contains a control character';
  return null;
}

export function isValidSessionId(value: unknown): value is string {
  return sessionIdProblem(value) === null;
}

/**
 * A session id about to be handed back to an agent (read from the store, or from a caller):
 * the wire rules plus no leading "-", so that a wrapper passing it as an argv value can never
 * have it read as an option. Returns the reason it is refused, or null.
 */
export function resumableSessionIdProblem(value: unknown): string | null {
  const p = sessionIdProblem(value);
  if (p) return p;
  if ((value as string).startsWith('-')) return 'starts with "-" (it could be read as a command-line option)';
  if ((value as string).length > 512) return 'longer than 512 characters';
  return null;
}
