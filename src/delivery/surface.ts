/**
 * The Surface: everything the core (bridge/ and delivery/) may ask of a platform.
 * The core never sees a Slack block or a Discord component; a platform never sees a RunResult.
 * Capabilities are read once per reply.
 */

/** Where a conversation lives. Opaque strings the platform can decode again. */
export interface Conversation {
  /** Workspace / guild / 'local'. '' for DMs on platforms without one. */
  space: string;
  channel: string;
  /** Thread id; '' when the conversation is the whole channel. */
  thread: string;
}

export interface UserRef {
  id: string;
  /** Display name when known, for "Allowed by @name". */
  name?: string;
  /** Platform role ids (Discord) used for approver checks. */
  roles?: string[];
}

/** A message the Surface posted. `id` is opaque (the platform encodes channel + ts/id in it). */
export interface MessageRef {
  id: string;
  conversation: Conversation;
}

/** One rate budget: a named bucket, e.g. "slack:T1:chat.update" at 50/min shared by all replies. */
export interface RateBudget {
  key: string;
  /** Sustained operations per minute. */
  perMinute: number;
  /** Operations allowed back-to-back before pacing starts (default 1). */
  burst?: number;
}

export interface SurfaceCapabilities {
  /** Longest answer text (markdown) one message may hold, after the platform's own overhead. */
  maxTextChars: number;
  /** Longest thinking line shown with a live message. */
  maxThinkingChars: number;
  /** Buttons (Allow/Deny/Stop) are available. */
  buttons: boolean;
  /** Target gap between edits of one live message, in ms (e.g. 1000 for Discord). */
  minEditIntervalMs: number;
}

/** What one chat message shows. Markdown in `text`; the platform converts it to its own dialect. */
export interface MessageContent {
  /** Answer text for this part (already split to fit maxTextChars). May be '' while only thinking. */
  text: string;
  /** Latest thinking, shown muted and apart from the answer; absent when not thinking. */
  thinking?: string;
  /** A short status line: "working…", "queued: position 2", "stopped by @ana", ... */
  status?: string;
  /** How the status line reads. */
  tone?: 'progress' | 'success' | 'error' | 'warning' | 'info';
  /** Show a Stop control carrying this opaque action id; absent = no control. */
  stopActionId?: string;
}

export type PromptState = 'pending' | 'allowed' | 'denied' | 'timeout' | 'expired';

/** A permission prompt as the platform should render it. */
export interface PermissionPromptView {
  /** Opaque id the platform puts in its Allow/Deny buttons and hands back on click. */
  promptId: string;
  toolName: string;
  description?: string;
  /** The tool input, formatted for reading and already truncated for display. */
  inputPreview: string;
  state: PromptState;
  /** Who decided (allowed / denied). */
  decidedBy?: UserRef;
  /** Extra line for timeout / expired states. */
  note?: string;
}

/** States shown on the user's own message (Slack / Discord reactions). */
export type ReactionState = 'working' | 'success' | 'failure';

/** The user's message that started a turn, as the platform can find it again. */
export interface SourceMessageRef {
  id: string;
  conversation: Conversation;
}

export interface Surface {
  readonly platform: string;
  readonly capabilities: SurfaceCapabilities;

  /** The budgets an operation in this conversation consumes (all of them, in order). */
  budgets(op: 'post' | 'edit', conversation: Conversation): RateBudget[];

  /** Post a new message in the conversation. Throws RateLimitedError on 429. */
  post(conversation: Conversation, content: MessageContent): Promise<MessageRef>;
  /** Replace a message's content. Throws RateLimitedError on 429. */
  edit(ref: MessageRef, content: MessageContent): Promise<void>;

  /** Render a permission prompt (buttons). */
  postPrompt(conversation: Conversation, view: PermissionPromptView): Promise<MessageRef>;
  /** Update a prompt in place (outcome, who decided, buttons gone). */
  updatePrompt(ref: MessageRef, view: PermissionPromptView): Promise<void>;

  /** Optional: typing indicator or native "thinking" status while nothing is visible yet. */
  showTyping?(conversation: Conversation): Promise<void>;
  /** Optional: reflect turn state on the user's message (reactions). Failures are logged, not fatal. */
  react?(source: SourceMessageRef, state: ReactionState): Promise<void>;
}
