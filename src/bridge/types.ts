import type { Conversation, SourceMessageRef, UserRef } from '../chat.js';
import type { BridgeConfig } from '../config/types.js';
import type { Surface } from '../delivery/surface.js';
import type { Logger } from '../log.js';
import type { Attachment } from '../protocol/types.js';
import type { AttachmentRef } from '../state/index.js';

export type { AttachmentRef };

/** A chat message addressed to the bot, normalised by a platform. */
export interface InboundMessage {
  /** 'slack' | 'discord' | 'local' */
  platform: string;
  conversation: Conversation;
  user: UserRef;
  /** Bot mention stripped, mentions and links made readable. */
  text: string;
  attachments: Attachment[];
  /** The files as the platform offered them (URL, name; no token): kept with a queued turn so it can be fetched again after a restart. */
  attachmentRefs?: AttachmentRef[];
  /** Platform delivery id; a repeated id is dropped. */
  eventId: string;
  /**
   * The platform claimed `eventId` already (claimEvent, with its other keys in the same commit:
   * Slack's channel + ts), so the bridge does not claim it again.
   */
  claimed?: true;
  receivedAt: number;
  /** The user's message, for reactions. */
  source?: SourceMessageRef;
  /** Files the platform downloaded for this turn, removed after it (unless kept by config). */
  cleanup?: () => Promise<void>;
  /** Problems the platform met before the turn (skipped attachments), shown in the reply. */
  notices?: string[];
  /** A direct message (Slack IM, Discord DM): governed by access.dms, never by channel lists. */
  direct?: boolean;
  /**
   * Files the message carries that are not fetched yet. The bridge calls this once, only after
   * the message passed the access and queue checks, so a refused stranger makes it fetch nothing.
   */
  download?: PendingDownload;
}

export interface PendingDownload {
  /** How many files the message carries (a message with files is never a command). */
  count: number;
  /** Download into a directory made under `dir` (the bridge gives the conversation's; default the platform's own). */
  fetch(dir?: string): Promise<{ attachments: Attachment[]; notices: string[]; cleanup(): Promise<void> }>;
}

/** The choices on a permission prompt. */
/** `allow_thread`: a rule for the author's requests in this thread; `allow_thread_all`: for everyone's. */
export type PromptAction = 'allow' | 'allow_thread' | 'allow_thread_all' | 'edit' | 'deny' | 'deny_reason' | 'show_input';
export const PROMPT_ACTIONS: readonly PromptAction[] = ['allow', 'allow_thread', 'allow_thread_all', 'edit', 'deny', 'deny_reason', 'show_input'];

/**
 * The choices on a card (chat.ts PromptCard). Questions: `answer` an option (single choice),
 * `pick` options in a select menu (kept until Submit), `submit` a multi-select, `other` opens the
 * free-text form, `skip` declines every question. Plans: `approve`, `revise` opens the feedback form.
 */
export type CardAction = 'answer' | 'pick' | 'submit' | 'other' | 'skip' | 'approve' | 'revise';
export const CARD_ACTIONS: readonly CardAction[] = ['answer', 'pick', 'submit', 'other', 'skip', 'approve', 'revise'];

/** Which question of a card (0-based) a click is about, and the options chosen (0-based, as the card lists them). */
export interface CardChoice {
  question: number;
  options?: number[];
}

/**
 * A form the platform shows the clicker (a Slack modal, a Discord modal, a dialog on the local
 * page). `reason`, `edit`, `other` and `feedback` come back as a FormSubmitEvent; `view` only shows text.
 */
export type PromptForm =
  | { kind: 'reason'; promptId: string; title: string; label: string; toolName: string }
  | { kind: 'edit'; promptId: string; title: string; label: string; toolName: string; initial: string; format: 'command' | 'json' }
  | { kind: 'view'; promptId: string; title: string; toolName: string; text: string }
  /** "Other…" on a question: the typed answer to question `question`; `label` is the question. */
  | { kind: 'other'; promptId: string; title: string; label: string; toolName: string; question: number }
  /** "Keep planning" on a plan: the feedback the agent reads. */
  | { kind: 'feedback'; promptId: string; title: string; label: string; toolName: string };

/** The kinds of form that are submitted. */
export type FormKind = 'reason' | 'edit' | 'other' | 'feedback';

/** A button click, decoded by the platform. */
export interface ActionEvent {
  platform: string;
  /** A prompt or card choice, 'stop' for the Stop control, or 'rerun' for Run again on an interrupted reply. */
  action: PromptAction | CardAction | 'stop' | 'rerun';
  /** The opaque id the core put in the button (promptId or stopActionId). */
  id: string;
  /** Card clicks: the question, and the options chosen. */
  choice?: CardChoice;
  user: UserRef;
  /** Tell only the clicker something (ephemeral where the platform allows it). */
  notifyPrivately(text: string): Promise<void>;
  /**
   * Show the clicker a form. Slack and Discord must open it within 3 s of the click, so the
   * core calls this before anything slow. Absent = the platform has no forms.
   */
  openForm?(form: PromptForm): Promise<void>;
}

/**
 * A platform's own Stop on a conversation (Slack's agent session Stop, agent_session_stopped): it
 * names the conversation, not a turn.
 */
export interface ConversationStopEvent {
  platform: string;
  conversation: Conversation;
  user: UserRef;
  /** Tell only this person something (a refusal). */
  notifyPrivately(text: string): Promise<void>;
}

/** A submitted form: a reason, an edited input, a typed answer, a plan's feedback. */
export interface FormSubmitEvent {
  platform: string;
  kind: FormKind;
  /** The promptId the form was opened for. */
  id: string;
  /** `other`: the question (0-based) the typed answer is for. */
  question?: number;
  value: string;
  user: UserRef;
  notifyPrivately(text: string): Promise<void>;
}

/** ok, or why the submission was refused (shown in the form where the platform can). */
export type FormAnswer = { ok: true } | { ok: false; error: string };

/** What the bridge core offers platforms. */
export interface BridgeInbound {
  /** Accept a message; resolves once it is queued (or refused), not when the turn ends. */
  handleMessage(msg: InboundMessage): Promise<void>;
  /** Handle a button click. Resolves after the decision is recorded. */
  handleAction(ev: ActionEvent): Promise<void>;
  /**
   * A platform's own Stop on a conversation: stops its running turn (else its oldest waiting one)
   * exactly as the Stop button does (same rights check; on the replica holding it). 'nothing' when
   * no turn of the conversation is held anywhere. Optional for test doubles.
   */
  handleStop?(ev: ConversationStopEvent): Promise<'asked' | 'nothing'>;
  /** Handle a submitted form (reason, edited input). Optional for test doubles. */
  handleFormSubmit?(ev: FormSubmitEvent): Promise<FormAnswer>;
  /**
   * Claim a platform event id (dedupe before any work such as downloading files): true for the
   * first claim only, across restarts and replicas, within the dedupe window. A store failure
   * answers true (better a rare repeat than a lost message). `more`: other keys of the same
   * message, claimed with it in one commit, all or none (false when any was taken).
   */
  claimEvent(platform: string, id: string, ...more: string[]): Promise<boolean>;
  /**
   * Whether the bot owns this thread (it answered there before, in this process or an earlier
   * one), so a follow-up without a mention still continues the conversation.
   */
  ownsThread(platform: string, conversation: Conversation): Promise<boolean>;
  /**
   * Whether a message id (as passed to claimEvent) is claimed: some replica took that message as
   * meant for the bot and is deciding it (a thread's root on its way to ownership).
   */
  isClaimed(platform: string, id: string): Promise<boolean>;
  /**
   * Whether this person may use the bridge here (the access check, without side effects), so a
   * platform can skip work for a stranger before handing the message over (Discord starts no
   * thread for them). Optional for test doubles.
   */
  admits?(msg: Pick<InboundMessage, 'platform' | 'conversation' | 'user' | 'direct'>): Promise<boolean>;
}

export type PlatformStatus =
  | { state: 'starting' }
  | { state: 'ready' }
  | { state: 'degraded'; reason: string; hint?: string }
  | { state: 'stopped' };

/** A platform adapter: connects to the chat service, feeds the bridge, renders through its Surface. */
export interface Platform {
  readonly name: string;
  readonly surface: Surface;
  /** Connect. Never throws for a bad token or an unreachable service: reports it via status(). */
  start(bridge: BridgeInbound): Promise<void>;
  stop(): Promise<void>;
  status(): PlatformStatus;
}

/** What main.ts hands every platform factory (createSlackPlatform, createDiscordPlatform, createLocalPlatform). */
export interface PlatformFactoryOptions {
  /** The configuration, the platform's own settings (tokens too, never logged) in `config.platforms`. */
  config: BridgeConfig;
  logger: Logger;
}

export interface BridgeStats {
  /** Agent processes holding a slot. */
  activeAgents: number;
  /** Agent processes paused on a prompt, holding no slot. */
  parkedAgents: number;
  queued: number;
  turnsByOutcome: Record<string, number>;
}

export interface Bridge extends BridgeInbound {
  /** Register a platform's Surface (messages with msg.platform === surface.platform render there). */
  attach(surface: Surface): void;
  /** Stop accepting turns, cancel running ones, finalize their messages ("interrupted: the bridge restarted"). */
  shutdown(graceMs?: number): Promise<void>;
  stats(): BridgeStats;
  readonly logger: Logger;
}
