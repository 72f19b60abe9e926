/**
 * What the bridge writes to an agent: the turn line, a permission_response line, and the rules a
 * session id must meet on the wire and before it is handed back to an agent.
 */
import { PROTOCOL_VERSION, type Attachment, type PermissionDecision, type TurnObject } from './types.js';

export function buildTurn(input: { message: string; sessionId?: string; sessionName?: string; attachments?: Attachment[]; permission: boolean }): TurnObject {
  return {
    type: 'turn',
    message: input.message,
    session_id: input.sessionId ?? '',
    session_name: input.sessionName || 'default',
    attachments: input.attachments ?? [],
    permission: input.permission,
    protocol_version: PROTOCOL_VERSION,
  };
}

/** A turn carries content when it has message text or at least one attachment. */
export function turnHasContent(input: { message: string; attachments?: Attachment[] }): boolean {
  return input.message !== '' || (input.attachments?.length ?? 0) > 0;
}

/** One NDJSON line for stdin. updated_input only when the approver supplied one (never pre-filled). */
export function permissionResponseLine(requestId: string, decision: PermissionDecision): string {
  const obj: Record<string, unknown> = { type: 'permission_response', request_id: requestId, behavior: decision.behavior };
  if (decision.behavior === 'allow' && decision.updatedInput) obj.updated_input = decision.updatedInput;
  if (decision.message !== undefined) obj.message = decision.message;
  return JSON.stringify(obj) + '\n';
}

/*
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
