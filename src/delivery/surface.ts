import type { Conversation, MessageContent, MessageRef, PermissionPromptView, RemoteAttachment, SourceMessageRef, UserRef } from '../chat.js';
import type { Attachment } from '../protocol/types.js';

/**
 * The Surface: everything the core (bridge/ and delivery/) may ask of a platform.
 * The core never sees a Slack block or a Discord component; a platform never sees a RunResult.
 * Capabilities are read once per reply.
 */

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

/** States shown on the user's own message (Slack / Discord reactions). */
export type ReactionState = 'working' | 'success' | 'failure';

/**
 * How a conversation's work stands, for a platform that shows it natively (Slack's agent session
 * status, whose "working" carries Slack's own Stop): 'working' a turn runs; 'waiting' every turn
 * that runs waits on a person (a permission prompt); 'idle' none runs; 'closed' the conversation
 * was reset (`new`).
 */
export type ConversationActivity = 'working' | 'waiting' | 'idle' | 'closed';

/** With 'working': the turn's message and its author (a platform may title the conversation from its first). */
export interface ActivityAbout {
  text: string;
  author: UserRef;
}

export interface Surface extends SurfaceExtras {
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
  /**
   * With `react`: the budgets one `react(source, state)` spends (all of them, in order). Reactions
   * count against the same workspace budgets as everything else, so delivery paces them too.
   */
  reactBudgets?(source: SourceMessageRef, state: ReactionState): RateBudget[];
}

/** What a reply does when its first stream start would wait past the grace (NativeStreaming.lateStart). */
export type LateStart = 'edit' | 'hand-over';

/**
 * Optional native streaming (Slack chat.startStream / appendStream / stopStream). The core's
 * post + edit path is the defined fallback: `start()` may answer null (not here, not now, or
 * not in this workspace), and the reply then goes on with post + edit. Decided once per reply.
 * A streamed message cannot be edited while it streams, so a reply that streams keeps its
 * status line, thinking line and Stop control in a separate small control message (posted and
 * edited as usual) that it removes at the end.
 */
export interface NativeStreaming {
  /** Longest answer (markdown) one streamed message may hold, with headroom under the platform cap. */
  readonly maxChars: number;
  /** The budgets a stream operation in this conversation consumes (all of them, in order). */
  budgets(op: 'start' | 'append' | 'stop', conversation: Conversation): RateBudget[];
  /**
   * Optional: false when a reply here cannot stream (known without a call, e.g. no thread, or the
   * workspace refused before): the reply then uses post + edit from the start.
   */
  available?(conversation: Conversation): boolean;
  /**
   * Optional: what a reply does when its first start would wait for budget past a short grace
   * (a busy workspace). 'edit' (default): the reply goes on with post + edit. 'hand-over': the
   * answer shows on the control message meanwhile, and the stream carries the rest once it starts.
   * A function answers per conversation (Slack: a route's own streaming mode).
   */
  readonly lateStart?: LateStart | ((conversation: Conversation) => LateStart);
  /**
   * Start a streamed message showing `markdown` (non-empty). Null = streaming is not available
   * here (use post + edit for this reply). Throws RateLimitedError on 429; other errors are
   * failures the caller may retry.
   */
  start(conversation: Conversation, opts: { markdown: string; recipient?: UserRef }): Promise<NativeStream | null>;
  /**
   * Optional: stop a stream this process no longer holds (started before a crash), by its ref,
   * with `final` as NativeStream.stop takes it. A stream the platform already ended is not an error.
   */
  stopOrphan?(ref: MessageRef, final: MessageContent): Promise<void>;
}

/** One streamed message. */
export interface NativeStream {
  readonly ref: MessageRef;
  /**
   * True once the platform said this message is no longer streaming (stopped elsewhere, timed
   * out, streaming not allowed after all): appends and stop will not work, continue elsewhere.
   */
  readonly ended: boolean;
  /** Append answer markdown. Throws RateLimitedError on 429. */
  append(markdown: string): Promise<void>;
  /**
   * End the stream. `final.text` is markdown still to append (may be ''); status/tone, when
   * given, are shown after the answer. No controls remain. Throws RateLimitedError on 429.
   */
  stop(final: MessageContent): Promise<void>;
}

/** A file the bridge posts into a conversation (the agent's outbox). */
export interface OutgoingFile {
  /** The name shown: already safe everywhere (letters, digits, '.', '_', '-'; no leading dot). */
  name: string;
  data: Buffer;
  /** e.g. image/png: images are shown inline where the platform can. */
  mimeType: string;
}

/** One message of files, and what finds it again after a crash (Surface.findFiles). */
export interface FilePost {
  files: OutgoingFile[];
  /** A short line shown with the files (their names, say); may be ''. */
  caption: string;
  /** Opaque id the message carries where the platform can hold one out of sight (Slack: a block id). */
  marker: string;
  /** The last message posted in the conversation before this one (the reply's last part), when known. */
  after?: MessageRef;
}

/** What one message of files may carry in a conversation. */
export interface FileLimits {
  /** Files per message (Discord 10). */
  maxFiles: number;
  /** Bytes of all files of one message (Discord: the 25 MiB request). */
  maxMessageBytes: number;
  /** Bytes of one file here (Discord: by the server's boost level; Slack 1 GB). */
  maxFileBytes: number;
}

/** Optional capabilities a Surface may add (kept apart from the required core above). */
export interface SurfaceExtras {
  /**
   * Post files in one message of the conversation (in its thread), images inline where the
   * platform shows them so. The caller keeps within fileLimits(). Throws RateLimitedError on 429;
   * a TurnbridgeError marked permanent when no retry can help (too large, no permission).
   */
  postFiles?(conversation: Conversation, post: FilePost): Promise<void>;
  /** With postFiles: the limits of one message of files here. */
  fileLimits?(conversation: Conversation): FileLimits;
  /** With postFiles: the budgets one postFiles (and one findFiles) spends. */
  fileBudgets?(conversation: Conversation): RateBudget[];
  /**
   * Crash recovery: whether the platform shows a message of files posted with this post's marker
   * (or, where no marker can be carried, the first message of the bot after `after` with exactly
   * these file names). Throws when the platform could not be asked.
   */
  findFiles?(conversation: Conversation, post: Pick<FilePost, 'marker' | 'after'> & { names: string[] }): Promise<boolean>;
  /**
   * Show `text` to one person only, about their message `source` (the way-in reply with a pairing
   * code, in a channel): Slack an ephemeral message (in the thread when the message was in an
   * active one), Discord a direct message. Resolves where it went: `here` (in the conversation,
   * seen by them alone) or `dm`. Throws when it could not be shown.
   */
  tellPrivately?(source: SourceMessageRef, user: UserRef, text: string): Promise<'here' | 'dm'>;
  /**
   * Download a message's files again (a turn queued before a restart runs now), with the
   * platform's credentials, under the platform's limits, into a directory made under `dir`
   * (the bridge's staging place for the conversation; default the platform's own).
   */
  fetchAttachments?(files: RemoteAttachment[], dir?: string): Promise<{ attachments: Attachment[]; notices: string[]; cleanup(): Promise<void> }>;
  /** Native streaming; absent = post + edit only. */
  readonly streaming?: NativeStreaming;
  /** Delete a message the Surface posted (the control message of a streamed reply). */
  remove?(ref: MessageRef): Promise<void>;
  /** The budgets `remove` consumes. */
  removeBudgets?(conversation: Conversation): RateBudget[];
  /**
   * Make agent text notify no one (Slack `<!here>`, `<!channel>`, `<!subteam^…>`, `<@U…>`): the
   * core applies it to every piece of agent text unless the profile sets allow_mentions. Must
   * map text piecewise (only a trailing `<` may need the next piece; the core holds it back).
   */
  neutralizeMentions?(text: string): string;
  /**
   * Members (user ids) of an approver group that the click does not carry (Slack user groups;
   * Discord roles come with the member). Absent = groups are matched on UserRef.roles only.
   */
  groupMembers?(groupId: string): Promise<readonly string[]>;
  /**
   * Crash recovery: the messages this Surface posted in the conversation that carry `marker` (a
   * prompt's id in its buttons, a live reply's Stop id), oldest first; empty when the platform
   * holds none. Reads the platform's own record of the conversation (Slack conversations.replies,
   * Discord channel messages), so a post that landed but was never recorded is found. Throws when
   * the platform could not be asked.
   */
  findPosted?(conversation: Conversation, marker: string): Promise<MessageRef[]>;
  /** The budgets one `findPosted` consumes. */
  findBudgets?(conversation: Conversation): RateBudget[];
  /**
   * Show how the conversation's work stands (ConversationActivity), where the platform has its own
   * display for it. The core sends a change only, in order per conversation. Throws only
   * RateLimitedError on 429 (delivery waits it out): what the platform refuses is its to log (and
   * to stop asking, where it means "not here at all").
   */
  showActivity?(conversation: Conversation, activity: ConversationActivity, about?: ActivityAbout): Promise<void>;
  /** With showActivity: the budgets one call consumes. */
  activityBudgets?(conversation: Conversation): RateBudget[];
}
