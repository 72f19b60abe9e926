/**
 * What the permission broker (permission-broker.ts) is asked, what it offers, and what it is built
 * with: a turn's request for a decision, the broker's methods, its options (approvers, the ledger's
 * prompt records, thread rules, the audit trail).
 */
import type { Conversation, MessageRef, PermissionPromptView, PromptCard, UserRef } from '../../chat.js';
import type { Surface } from '../../delivery/surface.js';
import type { PromptPost, PromptRender } from '../../delivery/types.js';
import type { Logger } from '../../log.js';
import type { PermissionDecision, PermissionRequest } from '../../protocol/types.js';
import type { AuditTrail, Rules } from '../../state/index.js';
import type { ActionEvent, FormAnswer, FormSubmitEvent } from '../types.js';
import type { ApproverPolicy } from './approvers.js';

export interface PromptRequest {
  turnId: string;
  surface: Surface;
  conversation: Conversation;
  /** The person who started the turn. */
  author: UserRef;
  request: PermissionRequest;
  /** Aborted by the runner when the turn ends first. */
  signal: AbortSignal;
  /** Answer deny after this long. */
  timeoutMs: number;
  log: Logger;
  /** A card instead of Allow / Deny (default: cards.ts cardOf, e.g. a plan card that does not know what was shown). */
  card?: PromptCard;
  /** Who may decide besides the author (default: the broker's approvers). */
  approvers?: ApproverPolicy;
  /** The agent's working directory (the conversation's workspace): path rules are inside it. */
  workspace?: string;
  /**
   * Post the prompt through delivery (LiveReply.postPrompt: below the turn's reply, paced and
   * retried like every message; the reply continues below it). The broker only decides.
   */
  post(render: PromptRender): PromptPost;
  /** A person must decide (no rule answered): the turn may give its slot away meanwhile. */
  onWaiting?: () => void;
  /** The prompt could not be shown (the platform refused it for good): the line the reply shows. */
  onNotShown?: (line: string) => void;
  /** A thread rule answered the request without a prompt: the line the reply shows. */
  onAutoAllowed?: (line: string) => void;
}

export interface PermissionBroker {
  /** Answer from a thread rule, or show a prompt and resolve with the first valid decision, a timeout deny, or an expiry deny. */
  request(req: PromptRequest): Promise<PermissionDecision>;
  /** A prompt click. Unknown or settled ids are answered privately. */
  handleAction(ev: ActionEvent): Promise<void>;
  /** A submitted reason or edited input. */
  handleFormSubmit(ev: FormSubmitEvent): Promise<FormAnswer>;
  /** The turn ended: its open prompts show "expired". */
  expireTurn(turnId: string, note?: string): void;
  /** Every open prompt shows "expired" (shutdown). */
  expireAll(note?: string): void;
  /** Resolves once every prompt edit started so far has landed (or failed). */
  idle(): Promise<void>;
  readonly open: number;
  /** Whether this broker holds an open prompt with this id (else another replica may). */
  holds(promptId: string): boolean;
}

export interface PermissionBrokerOptions {
  approvers: readonly string[];
  /** TURNBRIDGE_ADMINS: decide any prompt (read on each click: the array may change). */
  admins?: readonly string[];
  logger: Logger;
  idFactory?: () => string;
  /** How many settled prompt ids are remembered for "already decided" answers (default 1000). */
  rememberSettled?: number;
  /**
   * The ledger: a prompt is recorded as being posted before its post goes out (resolves once on
   * disk), recorded once shown, and forgotten once its final state landed.
   */
  record?: {
    posting(p: { id: string; turnId: string; platform: string; conversation: Conversation; view: PermissionPromptView }): Promise<void>;
    shown(p: { id: string; turnId: string; platform: string; ref: MessageRef; view: PermissionPromptView }): void;
    settled(id: string): void;
  };
  /** Thread rules ("Allow for this thread"); absent = that choice is not offered. */
  rules?: Rules;
  audit?: AuditTrail;
  now?: () => number;
}
