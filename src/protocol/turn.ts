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
