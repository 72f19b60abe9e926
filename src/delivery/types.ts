import type { Conversation, MessageContent, MessageRef, PermissionPromptView, ReplyJournal, SourceMessageRef, UserRef } from '../chat.js';
import type { PartialChunk } from '../protocol/types.js';
import type { ActivityAbout, ConversationActivity, FilePost, ReactionState } from './surface.js';

/**
 * How a turn ended, as the live reply must show it. `footer`: a muted last line under the final
 * text of the reply's last message (the turn's usage), whatever the outcome.
 */
export type ReplyOutcome = (
  /** `reply` is RunResult.reply: the body still to show after the partials already appended. */
  | { kind: 'success'; reply: string }
  | { kind: 'error'; message: string }
  | { kind: 'timeout'; message: string }
  | { kind: 'stopped'; by?: UserRef }
  | { kind: 'interrupted'; message: string }
) & { footer?: string };

export interface LiveReplyOptions {
  /** Opaque id for the Stop control shown while running (absent = no Stop control). */
  stopActionId?: string;
  /** First status line, e.g. "working…" or "queued: position 2". */
  initialStatus?: string;
  /** Lines shown after the answer at the end (skipped attachments, oversized event dropped, ...). */
  notices?: string[];
  /** A one-time line shown in this reply (e.g. "this agent runs tools without asking"). */
  banner?: string;
  /**
   * The person the reply answers (the turn's author). Native streaming needs it (Slack streams
   * to a recipient in channels); without it the reply may still stream where the platform allows.
   */
  recipient?: UserRef;
  /**
   * Called after each platform call of this reply landed, with its messages in thread order and
   * what each shows: the bridge records it so a restart after a crash can finalize them.
   */
  onJournal?: (journal: ReplyJournal) => void;
  /** Start on this already posted message (a "queued" message from before a restart) instead of posting one. */
  reuse?: MessageRef;
}

export interface DeliveryStats {
  posts: number;
  edits: number;
  /** Native stream calls (start, append, stop); 0 or absent when the reply used post + edit only. */
  streamCalls?: number;
  /** Times a platform 429 was honoured. */
  rateLimitWaits: number;
  /** Messages the reply ended up in. */
  parts: number;
  /** ms from the first appended partial to the first edit/post that showed text; undefined if none. */
  firstTextLatencyMs?: number;
}

/** A live reply's mode (reply/reply-mode.ts holds the union and its moves). */
export type ReplyModeKind = 'editing' | 'streaming' | 'parked' | 'finished';

/** One reply, edited live: shows progress at once, coalesces edits, splits over the length limit. */
export interface LiveReply {
  /** Which mode the reply is in: editing, streaming, parked or finished. */
  readonly mode: ReplyModeKind;
  /** Refs of every message this reply has posted so far (first = the live one). */
  readonly messages: readonly MessageRef[];
  /** Replace the status line (queue position, "working…"). */
  setStatus(status: string): void;
  /** Output partials are appended to the answer; thinking replaces the thinking line. */
  append(chunk: PartialChunk): void;
  /**
   * Something was posted below this reply (a permission prompt): freeze the current part as it is
   * (no status, thinking or Stop on it) and continue in a new message posted after it, which
   * carries status, thinking and Stop. A part that shows no answer text yet is deleted (or, where
   * the platform cannot delete, kept and reused). No text is lost or repeated.
   */
  continueBelow(): void;
  /**
   * Resolves once every message this reply has posted so far has landed (or was given up), a
   * stream start in flight included, so that something posted next (a permission prompt) appears
   * below them. A stream start still waiting for its budget is not waited for.
   */
  posted(): Promise<void>;
  /**
   * Post a permission prompt below this reply: after the reply's messages landed (posted()),
   * through the same limiters and attempt policy as every message; once it is visible the reply
   * continues below it (continueBelow()). `render` is called when the post goes out.
   */
  postPrompt(render: PromptRender): PromptPost;
  /**
   * The agent will show nothing more (its result came; its exit may take a while): live edits
   * wait (up to OUTPUT_END_HOLD_MS) so that the edit that shows the last text is the final one.
   */
  outputEnded(): void;
  /** Add a notice shown at the end. */
  addNotice(text: string): void;
  /** Write the final state. Always lands the final text (retries through 429s); resolves with stats. */
  finish(outcome: ReplyOutcome): Promise<DeliveryStats>;
}

/** Whether a prompt became visible: its ref and when, or why not (it never will). */
export type PromptShown =
  | { ok: true; ref: MessageRef; at: number }
  | { ok: false; why: 'permanent' | 'failures' | 'rate-limits' | 'cancelled'; detail: string };

/**
 * Renders a prompt when its post goes out. It may first record the prompt as being posted (the
 * broker's write-ahead: on disk before it can be seen), so it may answer a promise.
 */
export type PromptRender = () => PermissionPromptView | Promise<PermissionPromptView>;

/** Whether a message of files was posted, or why not ('unsupported': the platform takes no files). */
export type FilesPosted = { ok: true } | { ok: false; why: 'permanent' | 'failures' | 'rate-limits' | 'unsupported'; detail: string };

/** What a look for a message of files found (Delivery.findFiles). */
export type FoundFiles = 'found' | 'absent' | 'failed';

/** What a search for a message by its marker found (Delivery.findPosted). */
export type FoundPost = { kind: 'found'; refs: [MessageRef, ...MessageRef[]] } | { kind: 'absent' } | { kind: 'failed' };

/** A permission prompt posted through delivery. */
export interface PromptPost {
  /** Settles once the prompt is visible, or gave up ('cancelled': settled before it was posted). */
  readonly shown: Promise<PromptShown>;
  /**
   * Show another state (decided, timed out, expired) through the same limiters, latest wins. A
   * non-pending state before the post went out cancels the post. Resolves true once it shows
   * (or nothing was posted), false when the update gave up.
   */
  update(view: PermissionPromptView): Promise<boolean>;
}

export interface Delivery {
  /** Start a reply in a conversation: posts a progress message at once. */
  open(conversation: Conversation, opts?: LiveReplyOptions): LiveReply;
  /** Post a permission prompt that belongs to no live reply (same limiters and policy as LiveReply.postPrompt). */
  prompt(conversation: Conversation, render: PromptRender): PromptPost;
  /** Post a one-off message (busy notices, command acknowledgements), through the same limiters; it notifies no one (Surface.neutralizeMentions). */
  say(conversation: Conversation, text: string, tone?: 'info' | 'warning' | 'error' | 'success'): Promise<MessageRef | undefined>;
  /**
   * Recovery after a restart, through the same limiters at final priority: make a message this
   * bridge posted earlier show `content`. Resolves false when it did not land.
   */
  rewrite(ref: MessageRef, content: MessageContent): Promise<boolean>;
  /** Recovery: show a prompt posted earlier in its final state (no buttons). */
  rewritePrompt(ref: MessageRef, view: PermissionPromptView): Promise<boolean>;
  /**
   * Recovery: the messages this bridge posted in the conversation that carry `marker` (a prompt's
   * id in its buttons, a live reply's Stop id), oldest first, found on the platform (Slack
   * conversations.replies, Discord channel messages) through the same limiters. `absent`: the
   * platform holds none (the post never landed, or no message carries the marker any more);
   * `failed`: the platform could not be asked.
   */
  findPosted(conversation: Conversation, marker: string): Promise<FoundPost>;
  /**
   * Post one message of files (the agent's outbox) through the same limiters and attempt policy
   * as every message, at final priority. After a failure that may have landed, it looks for the
   * post on the platform (findFiles) before trying again, so a post never shows twice.
   */
  postFiles(conversation: Conversation, post: FilePost): Promise<FilesPosted>;
  /** Recovery: whether a message of files posted before a crash shows on the platform (Surface.findFiles). */
  findFiles(conversation: Conversation, post: Pick<FilePost, 'marker' | 'after'> & { names: string[] }): Promise<FoundFiles>;
  /** Recovery: stop a native stream started before the restart. */
  stopStream(ref: MessageRef, final: MessageContent): Promise<boolean>;
  /**
   * Reflect a turn's state on the user's message (reactions), paced by the same limiters as
   * messages. Never throws: a reaction is decoration, its failure is logged.
   */
  react(source: SourceMessageRef, state: ReactionState): Promise<void>;
  /**
   * Show how the conversation's work stands (Surface.showActivity), paced by the same limiters.
   * Never throws; a no-op where the platform has no such display.
   */
  activity(conversation: Conversation, activity: ConversationActivity, about?: ActivityAbout): Promise<void>;
}
