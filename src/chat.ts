/**
 * The chat's nouns, platform-neutral: where a conversation is, who a person is, a posted message
 * and what one shows, a permission prompt as a platform renders it, a file a message offered, a
 * reply's messages. Platforms (through the Surface, delivery/surface.ts), delivery, the bridge
 * and the state all speak them; they hold no behaviour.
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
  /** A muted last line under everything else (a finished reply's usage: tokens, cost); absent = none. */
  footer?: string;
  /** Show a Stop control carrying this opaque action id; absent = no control. */
  stopActionId?: string;
  /** Show a "Run again" button carrying this opaque action id (an interrupted reply, for its author). */
  rerunActionId?: string;
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
  /**
   * The rule "Allow for this thread" / "Allow for everyone here" adds, e.g. `Bash(npm test:*)`;
   * absent = neither choice is offered.
   */
  rule?: string;
  /** With `rule`: what it matches, in words (from the same rule value as the matcher). */
  ruleMeaning?: string;
  /** With `rule`: whose requests "Allow for this thread" covers (the request's author); "everyone here" covers anyone's. */
  ruleFor?: UserRef;
  /** `inputPreview` was cut for display: offer "Show full input". */
  truncated?: boolean;
  /** "Edit and allow" is offered. */
  editable?: boolean;
  /**
   * Who may decide: the author, approver user ids, approver group ids (Slack subteams, Discord
   * roles); `approvals: 'approvers'`: an approver must allow, the author may only deny.
   */
  deciders?: { author: UserRef; users: string[]; groups: string[]; approvals?: 'author' | 'approvers' };
  /** When a pending prompt times out (ms since the epoch). */
  expiresAt?: number;
  /** When it was decided (ms since the epoch). */
  decidedAt?: number;
  /** How it was allowed or denied. */
  how?: PromptHow;
  /** The reason given with "Deny with a reason" (a plan sent back: the feedback). */
  reason?: string;
  /**
   * A card instead of Allow / Deny (issue 26): the agent's question(s) with their options, or its
   * plan with Approve / Keep planning. `inputPreview`, the rule and the edit choices do not apply.
   */
  card?: PromptCard;
}

/** What a card shows: the agent asks (AskUserQuestion), or its plan is ready (ExitPlanMode). */
export type PromptCard = QuestionCard | PlanCard;

/** One to four questions in one card; the agent hears the answers once every one has its answer. */
export interface QuestionCard {
  kind: 'question';
  questions: CardQuestion[];
}

export interface CardQuestion {
  /** The question as asked (the answer is keyed by it). */
  text: string;
  /** A short label for it (claude: at most 12 characters). */
  header?: string;
  options: CardOption[];
  /** Several options may be chosen (checkboxes / a select menu, then Submit). */
  multiSelect: boolean;
  /** Answered: the value the agent gets (labels joined with ", ", or the typed text), who gave it, and whether it was typed ("Other…"). */
  answer?: { value: string; by: UserRef; typed?: boolean };
}

export interface CardOption {
  label: string;
  description?: string;
}

/** The plan itself is shown above the card, in the reply (split like any reply). */
export interface PlanCard {
  kind: 'plan';
  /** False: the agent sent no plan text (the card says so). */
  shown: boolean;
  /** The profile (its name) the thread's next turns use once the plan is approved, when that changes. */
  next?: string;
}

/**
 * once / for this thread (a rule for the author's requests) / for everyone here (a rule for
 * anyone's) / with edited input / with a reason; cards: answered, skipped, approved, sent back.
 */
export type PromptHow = 'once' | 'thread' | 'thread_all' | 'edited' | 'reason' | 'answered' | 'skipped' | 'approved' | 'revised';

/** The user's message that started a turn, as the platform can find it again. */
export interface SourceMessageRef {
  id: string;
  conversation: Conversation;
}

/** A file of a user's message as the platform offered it: enough to download it again (no token). */
export interface RemoteAttachment {
  /** The platform's id of the file (Slack F…, Discord attachment snowflake), for logs and lookups. */
  id?: string;
  url: string;
  filename: string;
  mimeType?: string;
  size?: number;
}

/** One message of a live reply as last confirmed by the platform. */
export interface JournalPart {
  ref: MessageRef;
  /** 'part': a post + edit message (a streamed reply's control message too); 'stream': a native stream. */
  kind: 'part' | 'stream';
  /** What the message shows (parts only). */
  content?: MessageContent;
}

/** A live reply's messages in thread order. */
export interface ReplyJournal {
  parts: JournalPart[];
}
