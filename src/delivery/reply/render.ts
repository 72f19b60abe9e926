/**
 * The render model of a live reply: pure functions from reply state to MessageContent (no I/O
 * and no clock, so it can be property-tested), and the thinking line they show.
 */
import type { MessageContent } from '../../chat.js';
import type { ReplyOutcome } from '../types.js';

export const DEFAULT_STATUS = 'working…';
/** The live status while a permission prompt posted below the reply waits for its decision. */
export const WAITING_STATUS = 'waiting for a decision…';
export const EMPTY_REPLY_TEXT = '(the agent finished without a reply)';
/** A visible break between partials already shown and the error that ended the turn. */
export const OUTCOME_SEPARATOR = '\n\n---\n\n';

/** What a live (still running) message shows. */
export interface LiveView {
  text: string;
  thinking?: string;
  status: string;
  stopActionId?: string;
}

export function renderLive(view: LiveView): MessageContent {
  const content: MessageContent = { text: view.text, status: view.status, tone: 'progress' };
  if (view.thinking) content.thinking = view.thinking;
  if (view.stopActionId) content.stopActionId = view.stopActionId;
  return content;
}

/** A part that the reply has moved past: its answer text only. */
export function renderFrozen(text: string): MessageContent {
  return { text };
}

/** The latest thinking, trimmed from the start so the newest words stay (with an ellipsis). */
export function trimThinking(thinking: string, maxChars: number): string {
  const t = thinking.replace(/^[\udc00-\udfff]/, '').trim();
  if (t.length <= maxChars) return t;
  if (maxChars <= 1) return t.slice(t.length - maxChars);
  let tail = t.slice(t.length - (maxChars - 1));
  const code = tail.charCodeAt(0);
  if (code >= 0xdc00 && code <= 0xdfff) tail = tail.slice(1);
  return `…${tail}`;
}

export function toneOf(outcome: ReplyOutcome): NonNullable<MessageContent['tone']> {
  switch (outcome.kind) {
    case 'success':
      return 'success';
    case 'error':
      return 'error';
    case 'timeout':
    case 'stopped':
    case 'interrupted':
      return 'warning';
  }
}

/** "prefix: message" unless the message already says it. */
function labelled(prefix: string, message: string): string {
  const m = message.trim();
  if (m === '') return prefix;
  return m.toLowerCase().startsWith(prefix) ? m : `${prefix}: ${m}`;
}

/** The line that says how a failed/stopped turn ended; undefined for success. */
export function outcomeLine(outcome: ReplyOutcome): string | undefined {
  switch (outcome.kind) {
    case 'success':
      return undefined;
    case 'error':
      return labelled('error', outcome.message);
    case 'timeout':
      return labelled('timed out', outcome.message);
    case 'stopped': {
      const who = outcome.by ? (outcome.by.name ?? outcome.by.id) : undefined;
      return who ? `stopped by @${who.replace(/^@/, '')}` : 'stopped';
    }
    case 'interrupted':
      return labelled('interrupted', outcome.message || 'the bridge restarted');
  }
}

/**
 * The tail that goes after the answer text of the last part: reply body (success), the outcome
 * line after a visible separator when partials were shown, and the notices.
 * `answerSoFar` is every answer character shown across all parts (to detect an empty reply).
 */
export function finalTail(answerSoFar: string, outcome: ReplyOutcome, notices: readonly string[]): string {
  let tail = outcome.kind === 'success' ? outcome.reply : '';
  const shown = answerSoFar + tail;
  const line = outcomeLine(outcome);
  if (line !== undefined) {
    tail += shown.trim() === '' ? line : `${OUTCOME_SEPARATOR}${line}`;
  } else if (shown.trim() === '') {
    tail += EMPTY_REPLY_TEXT;
  }
  const lines = notices.map((n) => n.trim()).filter((n) => n !== '');
  if (lines.length > 0) tail += `\n\n${lines.join('\n')}`;
  return tail;
}

/**
 * The thinking line of a live reply: the latest thinking text, trimmed from the start so the
 * newest words stay; cleared when answer text comes. The raw run is bounded too (a long think
 * never grows memory without end).
 */
export class ThinkingLine {
  private run = '';
  /** What the reply shows as thinking (undefined: none). */
  shown: string | undefined;

  constructor(private readonly maxChars: number) {}

  add(text: string): void {
    this.run += text;
    if (this.run.length > 4 * this.maxChars + 64) this.run = this.run.slice(-(2 * this.maxChars + 32));
    this.shown = trimThinking(this.run, this.maxChars) || undefined;
  }

  clear(): void {
    this.run = '';
    this.shown = undefined;
  }
}
