import { classifyWithJsonParse, EMPTY_PARTIAL_LINE_LENGTH, isPartialLine, partialTextIn, skipPartialLines } from '../protocol/classify.js';
import type { AgentEvent, Classified, PartialChunk, Usage } from '../protocol/types.js';
import type { RunLogger } from './types.js';

/**
 * The wire-0.4 rules for one turn, applied to classified events in order:
 * first session_id wins; at most one result; the first error is terminal (no more partials,
 * later result discarded); streaming false ignores partials; body capped with a notice.
 */
export class TurnState {
  sessionId = '';
  result: { text: string } | null = null;
  error: string | null = null;
  usage: Usage | undefined;
  readonly partials: PartialChunk[] = [];
  readonly notices: string[] = [];
  /** Non-empty output (non-thinking) partials forwarded: they carry the body. */
  private outputForwarded = false;
  private keptBytes = 0;
  private truncated = false;

  constructor(
    private readonly opts: {
      streaming: boolean;
      maxReplyBytes: number;
      logger?: RunLogger;
      onPartial?(chunk: PartialChunk): void;
      onSessionId?(id: string): void;
      onOutputEnd?(): void;
    },
  ) {}

  get failed(): boolean {
    return this.error !== null;
  }

  /**
   * Apply one stdout line, text[start, end) (a range of the decoded chunk; see LineSink).
   * Returns the event for the caller's own handling (permissions), or undefined for a blank
   * line and for the dominant `{"type":"partial","text":…}` line. That one takes a lane of
   * its own: its text is checked in place and goes straight to the body, with no event built.
   * Besides the allocation, this keeps the code V8 optimizes for the hot loop small: on two
   * cores, compiling it competes with the agent that is writing.
   */
  line(text: string, start: number, end: number): AgentEvent | undefined {
    if (this.failed || !this.opts.streaming || this.truncated) {
      // Its text would be dropped (after an error, with streaming off, past the reply cap):
      // the line is checked, not decoded, so an agent flooding output costs less from here on.
      if (isPartialLine(text, start, end)) {
        if (this.failed) this.opts.logger?.debug({ type: 'partial' }, 'event after error ignored');
        else if (end - start === EMPTY_PARTIAL_LINE_LENGTH) this.opts.logger?.debug('empty partial dropped');
        return undefined;
      }
    } else {
      const partial = partialTextIn(text, start, end);
      if (partial !== undefined) {
        this.takePartial(partial, undefined);
        return undefined;
      }
    }
    const line = start === 0 && end === text.length ? text : text.slice(start, end);
    // Blank lines are no events; a line starting with "{" (nearly all of them) is not blank.
    if (line.charCodeAt(0) !== 0x7b && line.trim() === '') return undefined;
    return this.apply(classifyWithJsonParse(line));
  }

  /**
   * Where the next line this turn must see begins, from a line start in a decoded chunk (see
   * LineSink.skipIgnored). While partials' texts are dropped (past the reply cap, streaming
   * off) and the turn has not failed, a dominant partial with text changes nothing, not even
   * the log: a run of them is passed over in one native pass. An agent flooding output past
   * the cap then costs about the regex's scan and no work per line.
   */
  skipIgnored(text: string, start: number): number {
    return (this.truncated || !this.opts.streaming) && !this.failed ? skipPartialLines(text, start) : start;
  }

  /** Apply one classified line. Returns the event for the caller's own handling (permissions). */
  apply(c: Classified): AgentEvent {
    const log = this.opts.logger;
    // Indexed, and only when there are any: an iterator per line showed in the hot loop's profile.
    if (c.warnings.length > 0) for (let i = 0; i < c.warnings.length; i++) log?.warn(c.warnings[i]!);
    if (c.droppedSessionId) log?.warn({ reason: c.droppedSessionId.reason }, 'invalid session_id dropped');
    const e = c.event;
    if (e.type === 'malformed') {
      log?.warn({ reason: e.reason }, 'malformed agent output line ignored');
      return e;
    }
    if (this.failed) {
      log?.debug({ type: e.type }, 'event after error ignored');
      return e;
    }
    if (e.sessionId !== undefined) this.noteSession(e.sessionId);
    switch (e.type) {
      case 'partial':
        this.takePartial(e.text, e.role);
        break;
      case 'result':
        if (this.result !== null) log?.warn('second result event ignored');
        else {
          this.result = { text: this.cap(e.text) };
          if (e.usage) this.usage = e.usage;
          this.opts.onOutputEnd?.();
        }
        break;
      case 'error':
        this.error = e.message !== '' ? e.message : 'the agent reported an error without a message';
        if (e.usage) this.usage = e.usage;
        this.opts.onOutputEnd?.();
        break;
      default:
        break;
    }
    return e;
  }

  private takePartial(text: string, role: string | undefined): void {
    // An empty partial ("text":"", a non-string text, or none; classify gives '' for all three)
    // carries nothing to show. It is dropped, not forwarded: forwarding it would make it
    // count as "a partial was forwarded", after which the spec forbids using result.text.
    if (text === '') this.opts.logger?.debug('empty partial dropped');
    else if (this.opts.streaming) this.forward(text, role);
  }

  private noteSession(id: string): void {
    if (this.sessionId === '') {
      this.sessionId = id;
      this.opts.onSessionId?.(id);
    } else if (id !== this.sessionId) {
      this.opts.logger?.warn({ first: this.sessionId, later: id }, 'agent changed session_id mid-turn; keeping the first');
    }
  }

  private forward(text: string, role: string | undefined): void {
    if (this.truncated) return;
    const bytes = Buffer.byteLength(text);
    if (this.keptBytes + bytes > this.opts.maxReplyBytes) {
      this.markTruncated();
      return;
    }
    this.keptBytes += bytes;
    const chunk: PartialChunk = role === undefined ? { text } : { text, role };
    this.partials.push(chunk);
    if (role !== 'thinking') this.outputForwarded = true;
    this.opts.onPartial?.(chunk);
  }

  private cap(text: string): string {
    const room = this.opts.maxReplyBytes - this.keptBytes;
    if (Buffer.byteLength(text) <= room) return text;
    this.markTruncated();
    // Cut on a character boundary.
    return Buffer.from(text).subarray(0, Math.max(0, room)).toString('utf8').replace(/\uFFFD$/, '');
  }

  private markTruncated(): void {
    if (this.truncated) return;
    this.truncated = true;
    const mib = (this.opts.maxReplyBytes / 1048576).toFixed(this.opts.maxReplyBytes % 1048576 === 0 ? 0 : 1);
    this.notices.push(`The reply was truncated at ${mib} MiB; the rest was dropped.`);
  }

  /** Spec body assembly: what to show after the forwarded partials. */
  reply(): string {
    if (this.failed || this.result === null) return '';
    if (!this.opts.streaming) return this.result.text;
    return this.outputForwarded ? '' : this.result.text;
  }
}
