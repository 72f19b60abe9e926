/** AgentProc wire protocol 0.4 (https://agentproc.dev; what an agent reads and writes: docs/profiles.md): the bytes on the agent's stdin and stdout. */

export const PROTOCOL_VERSION = '0.4';

/** One attachment in the turn object. `kind` and `url` are required by the spec; the rest is extra. */
export interface Attachment {
  kind: string;
  url: string;
  filename?: string;
  mime_type?: string;
  size?: number;
  source_url?: string;
  [extra: string]: unknown;
}

/** The one line the bridge writes to the agent's stdin first. */
export interface TurnObject {
  type: 'turn';
  message: string;
  session_id: string;
  session_name: string;
  attachments: Attachment[];
  permission: boolean;
  protocol_version: string;
}

/** Token / cost stats; forward-compatible, passed through untouched. */
export type Usage = Record<string, unknown>;

/** `role` is "output" (default) or "thinking"; unknown values are forwarded as-is. */
export interface PartialChunk {
  text: string;
  role?: string;
}

export interface PermissionRequest {
  requestId: string;
  toolName: string;
  input: Record<string, unknown>;
  description?: string;
  toolUseId?: string;
}

export interface PermissionDecision {
  behavior: 'allow' | 'deny';
  /** Reason shown to the agent on deny. */
  message?: string;
  /** Only when the approver changed or explicitly confirmed the input; never pre-filled. */
  updatedInput?: Record<string, unknown>;
}

/** A stdout line, classified. `sessionId` is set only when the line carried a valid one. */
export type AgentEvent =
  | { type: 'partial'; text: string; role?: string; sessionId?: string }
  | { type: 'result'; text: string; usage?: Usage; sessionId?: string }
  | { type: 'error'; message: string; usage?: Usage; sessionId?: string }
  | { type: 'permission_request'; request: PermissionRequest; sessionId?: string }
  /** A permission_request missing required fields; answered deny when `requestId` is known. */
  | { type: 'bad_permission_request'; requestId?: string; reason: string; sessionId?: string }
  | { type: 'malformed'; reason: string };

/** Classification also reports a session_id that was present but invalid (dropped with a warning). */
export interface Classified {
  event: AgentEvent;
  droppedSessionId?: { value: unknown; reason: string };
  /** Warnings such as usage on a partial. */
  warnings: readonly string[];
}
