/**
 * LiveReply: one reply, edited live. Posts a progress message at once, renders output partials
 * into the answer and thinking apart from it, freezes a part at a clean boundary when the
 * answer would pass the platform limit, and writes the final state (see render.ts).
 *
 * Its mode is one ReplyMode value (reply-mode.ts), changed only by the transitions below:
 * - startStream: with native streaming (Surface.streaming) the progress message becomes a
 *   control message (status, thinking, Stop) and the answer streams into its own message
 *   (stream-lane.ts); the control message is removed at the end.
 * - fallBackToEdits: streaming is not available or broke: the reply goes on with post + edit,
 *   decided once.
 * - park / resumeStream: when the first stream start would wait for budget, the answer shows on
 *   the control message through edits (for good, or until the stream starts and carries the rest:
 *   NativeStreaming.lateStart), so first text is never slow.
 * - continueBelow (after a permission prompt): freezes the current part and goes on in a new
 *   message below; after it the reply uses post + edit.
 * - finish: the final state.
 * The messages themselves (slots, streamed refs, deletions, order) are ReplyParts (reply-parts.ts).
 */
import type { Conversation, MessageContent } from '../../chat.js';
import type { Logger } from '../../log.js';
import type { PartialChunk } from '../../protocol/types.js';
import type { LimiterPool } from '../pacing/index.js';
import { closeFences, type MessageSlot, openFenceAt, type SlotDeps, splitMessage } from '../message/index.js';
import { postPrompt } from './prompt-post.js';
import { ReplyParts } from './reply-parts.js';
import { canMove, controlOf, laneOf, type LiveMode, type ReplyMode } from './reply-mode.js';
import { StreamLane } from '../stream/index.js';
import { DEFAULT_STATUS, WAITING_STATUS, finalTail, renderFrozen, renderLive, ThinkingLine, toneOf } from './render.js';
import type { NativeStreaming, Surface } from '../surface.js';
import type { DeliveryStats, LiveReply, LiveReplyOptions, ReplyOutcome } from '../types.js';

/**
 * The least grace a first stream start gets for its budget. A bridge's event loop stalls for tens
 * of ms when a turn starts (the agent's spawn, a state commit, the platform's own calls); a grace
 * shorter than that decides on the stall, not on the budget. Production's is the edit interval
 * (Slack 1.2 s); only a time-scaled test rig (rate_scale) goes below this.
 */
const MIN_START_GRACE_MS = 250;

export interface LiveReplyDeps {
  surface: Surface;
  pool: LimiterPool;
  conversation: Conversation;
  options?: LiveReplyOptions;
  now: () => number;
  logger: Logger;
  /** Consecutive non-429 failures per message before giving up (default 5). */
  maxAttempts?: number;
  /**
   * Longest wait for the first stream start's budget before the answer shows through edits
   * (default: the surface's minEditIntervalMs, at least MIN_START_GRACE_MS, or 1000 ms when it is 0).
   */
  streamStartGraceMs?: number;
  /** Called once with the final stats (Delivery totals). */
  onFinished?: (stats: DeliveryStats) => void;
}

/**
 * How long live edits wait once the agent's output ended (LiveReply.outputEnded) for the final
 * edit: past it (an agent slow to exit) they go out again.
 */
export const OUTPUT_END_HOLD_MS = 5_000;

export function createLiveReply(deps: LiveReplyDeps): LiveReply {
  const { surface, conversation, now, logger } = deps;
  const opts = deps.options ?? {};
  const caps = surface.capabilities;
  const maxText = Math.max(1, caps.maxTextChars);
  const stopActionId = caps.buttons ? opts.stopActionId : undefined;
  const notices: string[] = [...(opts.banner ? [opts.banner] : []), ...(opts.notices ?? [])];
  const stats: DeliveryStats = { posts: 0, edits: 0, rateLimitWaits: 0, parts: 0 };

  let status = opts.initialStatus ?? DEFAULT_STATUS;
  /**
   * Answer text of the live part (may start with a reopened code fence). While a stream runs it is
   * the text the control message keeps above the stream ('' unless the stream took over late).
   */
  let liveText = '';
  /** Every output character appended, across parts. */
  let answer = '';
  const thinking = new ThinkingLine(caps.maxThinkingChars);
  let firstAppendAt: number | undefined;
  /** Work continueBelow() started that finish() must wait for. */
  const below: Array<Promise<void>> = [];

  const onShown = (content: MessageContent): void => {
    journal();
    if (firstAppendAt === undefined || stats.firstTextLatencyMs !== undefined) return;
    if (content.text.trim() !== '' || (content.thinking ?? '').trim() !== '') stats.firstTextLatencyMs = now() - firstAppendAt;
  };
  /** Tell the turn's ledger (state/turn-ledger.ts) which messages the reply has and what each shows (after every landed call). */
  const journal = (): void => {
    if (!opts.onJournal) return;
    opts.onJournal({ parts: parts.journal(controlOf(mode)) });
  };
  const slotDeps: SlotDeps = {
    surface,
    pool: deps.pool,
    conversation,
    now,
    logger,
    stats,
    minEditIntervalMs: Math.max(0, caps.minEditIntervalMs),
    maxAttempts: deps.maxAttempts,
    onShown,
  };
  const parts = new ReplyParts(slotDeps, opts.reuse);
  /** Prompts shown below the reply and not decided yet: the live part says it waits instead of its status. */
  let promptsWaiting = 0;
  const liveContent = (): MessageContent =>
    renderLive({ text: liveText, thinking: thinking.shown, status: promptsWaiting > 0 ? WAITING_STATUS : status, stopActionId });

  let mode: ReplyMode = startStream(surface.streaming);

  /** Change the mode, or refuse a move the table does not allow (logged; nothing is changed). */
  function move(next: ReplyMode, transition: string): boolean {
    if (!canMove(mode.kind, next.kind)) {
      logger.warn({ from: mode.kind, to: next.kind, transition }, 'reply mode change refused');
      return false;
    }
    mode = next;
    return true;
  }

  /** The first mode: a control message and a lane where streaming is available here, else post + edit. */
  function startStream(streaming: NativeStreaming | undefined): ReplyMode {
    if (!streaming || !(streaming.available?.(conversation) ?? true)) {
      parts.add(liveContent());
      return { kind: 'editing', via: 'no-stream' };
    }
    const control = parts.detached(liveContent());
    // The answer's lane: paced like the post + edit messages, started after the control message's
    // post; hand-over only where the surface asks for it (NativeStreaming.lateStart).
    const lane = new StreamLane({
      streaming, pool: deps.pool, conversation, recipient: opts.recipient, now, logger, stats,
      minIntervalMs: Math.max(0, caps.minEditIntervalMs),
      maxAttempts: deps.maxAttempts,
      after: control.posted,
      startGraceMs: deps.streamStartGraceMs ?? (caps.minEditIntervalMs > 0 ? Math.max(MIN_START_GRACE_MS, caps.minEditIntervalMs) : 1000),
      onShown: () => onShown({ text: 'streamed' }),
      onFallback: (leftover, didStream) => fallBackToEdits(leftover, didStream),
      ...((typeof streaming.lateStart === 'function' ? streaming.lateStart(conversation) : streaming.lateStart) === 'hand-over'
        ? { onPark: park, handOver: resumeStream } : {}),
    });
    parts.streamHere(lane.refs, 0);
    return { kind: 'streaming', control, lane };
  }

  /** Streaming is over for this reply: the answer goes on with post + edit. */
  function fallBackToEdits(leftover: string, didStream: boolean): void {
    if (mode.kind !== 'streaming') {
      logger.warn({ mode: mode.kind, transition: 'fallBackToEdits' }, 'reply mode change refused');
      return;
    }
    const c = mode.control;
    move({ kind: 'editing', via: 'fell-back' }, 'fallBackToEdits');
    if (didStream) {
      const above = liveText === '' ? parts.retire(c, renderFrozen('')) : freeze(c, closeFences(liveText).frozen);
      liveText = leftover;
      addBelow(above);
    } else {
      parts.adopt(c);
      liveText += leftover;
    }
    splitIfNeeded();
    update();
  }

  /** The first start waits for budget: show the answer on the control message meanwhile. */
  function park(text: string): void {
    if (mode.kind !== 'streaming') {
      logger.warn({ mode: mode.kind, transition: 'park' }, 'reply mode change refused');
      return;
    }
    const { control, lane } = mode;
    move({ kind: 'parked', lane }, 'park');
    parts.adopt(control);
    liveText += text;
    splitIfNeeded();
    update();
  }

  /**
   * The parked start's turn came: the live message keeps what it shows (or is about to show), the
   * stream starts below it with the rest. '' = the edits show everything: no stream for this reply
   * (also once the reply finished or continued below).
   */
  function resumeStream(): string {
    if (mode.kind !== 'parked') return '';
    const { lane } = mode;
    const slot = parts.live;
    const shown = slot.committedText;
    const rest = liveText.startsWith(shown) ? liveText.slice(shown.length) : '';
    if (rest.trim() === '') {
      // the lane makes no start now and never will: the reply stays with post + edit
      move({ kind: 'editing', via: 'edits-caught-up' }, 'resumeStream');
      return '';
    }
    const fence = shown === '' ? null : openFenceAt(liveText, shown.length);
    liveText = fence ? closeFences(shown).frozen : shown;
    move({ kind: 'streaming', control: slot, lane }, 'resumeStream');
    parts.streamHere(lane.refs);
    update();
    return (fence ? `${fence.opener}\n` : '') + rest;
  }

  /** Freeze finished parts when the live text passed the limit; the rest stays live. */
  function splitIfNeeded(): void {
    if (liveText.length <= maxText) return;
    const pieces = splitMessage(liveText, maxText);
    for (let i = 0; i < pieces.length - 1; i++) {
      const above = freeze(parts.live, pieces[i]!);
      parts.add(renderFrozen(''), false, above);
    }
    liveText = pieces[pieces.length - 1]!;
  }

  /**
   * `slot` shows `text` and nothing live from now on. Its frozen state is final: the hold on live
   * edits after the agent's output ended (outputEnded) must not keep "working…" and Stop on it.
   * Resolves once it shows that (or gave up).
   */
  function freeze(slot: MessageSlot, text: string): Promise<boolean> {
    slot.set(renderFrozen(text), true);
    return slot.settle();
  }

  /**
   * The live part goes on in a new message below, posted once the part above lost its status and
   * Stop (`above`: frozen or deleted), so a person never sees two of them.
   */
  function addBelow(above: Promise<unknown>): void {
    parts.add(liveContent(), false, above);
  }

  function update(): void {
    if (mode.kind === 'finished') return;
    (mode.kind === 'streaming' ? mode.control : parts.live).set(liveContent());
  }

  /** The final state through post + edit: `text` split over the live part (unless `fresh`) and new parts. */
  function finishParts(text: string, tone: NonNullable<MessageContent['tone']>, fresh = false, footer?: string): void {
    const pieces = splitMessage(text, maxText);
    pieces.forEach((piece, i) => {
      const content: MessageContent = i === pieces.length - 1 ? { text: piece, tone, ...(footer ? { footer } : {}) } : renderFrozen(piece);
      if (i === 0 && !fresh && parts.count > 0) parts.live.set(content, true);
      else parts.add(content, true);
    });
  }

  /** continueBelow() while streaming: end the stream where it is; the control message keeps or drops its text. */
  function streamBelow(c: MessageSlot, l: StreamLane): void {
    const kept = liveText;
    const at = parts.count;
    liveText = '';
    const above = l.finish('', undefined).then((end) => {
      const text = end.streamed ? kept : kept + end.leftover;
      // the stream could not be stopped with its last text: it goes first in the new part
      let carry = end.streamed ? end.leftover : '';
      let gone: Promise<boolean>;
      if (text.trim() === '') {
        gone = parts.retire(c, renderFrozen(''));
        carry = text + carry;
      } else {
        gone = freeze(c, closeFences(text).frozen);
        parts.insertAt(c, at);
      }
      if (carry !== '') {
        liveText = carry + liveText;
        splitIfNeeded();
        update();
      }
      return gone;
    });
    // the control message keeps its Stop until the stream stopped: the new part waits for it
    addBelow(above);
    below.push(above.then(() => undefined));
  }

  /** Something was posted below the reply: freeze what shows and go on in a new message under it. */
  function continueBelow(): void {
    if (mode.kind === 'finished') return;
    if (mode.kind === 'streaming') {
      const { control, lane } = mode;
      move({ kind: 'editing', via: 'continued-below' }, 'continueBelow');
      streamBelow(control, lane);
      return;
    }
    if (mode.kind === 'parked') {
      const { lane } = mode;
      move({ kind: 'editing', via: 'continued-below' }, 'continueBelow');
      below.push(lane.finish('', undefined).then(() => undefined));
    }
    const slot = parts.live;
    let above: Promise<boolean>;
    if (liveText.trim() === '') {
      // no answer text in this part: delete it (its blank text moves on), or keep using it where
      // messages cannot be deleted
      if (!surface.remove) return;
      above = parts.retire(slot, renderFrozen(''));
    } else {
      const { frozen, reopen } = closeFences(liveText);
      above = freeze(slot, frozen);
      liveText = reopen;
    }
    addBelow(above);
  }

  /** Write the final state from the mode the reply was in when finish() was called. */
  async function writeFinal(was: LiveMode, outcome: ReplyOutcome): Promise<DeliveryStats> {
    // The output-end hold waited for this: what finishing waits on (a stream's end, the part
    // above a prompt) may itself wait for a post under the hold, and held the final text 5 s.
    const control = controlOf(was);
    for (const slot of control ? [...parts.slots, control] : parts.slots) slot.endHold();
    for (let i = 0; i < below.length; i++) await below[i];
    const tail = finalTail(answer, outcome, notices);
    const tone = toneOf(outcome);
    const footer = outcome.footer?.trim() || undefined;
    if (was.kind === 'streaming') {
      // The footer goes on the last message: the stream's stop when nothing is left over, else the last part.
      const end = await was.lane.finish(tail, tone, footer);
      const c = was.control;
      if (!end.streamed) {
        parts.adopt(c);
        finishParts(liveText + end.leftover, tone, false, footer);
      } else {
        if (liveText === '') parts.retire(c, { text: '', status: 'finished', tone });
        else c.set(renderFrozen(closeFences(liveText).frozen), true);
        parts.unchain();
        if (end.leftover !== '') finishParts(end.leftover, tone, true, footer);
      }
    } else {
      if (was.kind === 'parked') await was.lane.finish('', undefined);
      finishParts(liveText + tail, tone, false, footer);
    }
    const landed = await parts.settle();
    stats.parts = parts.parts;
    if (!landed) logger.error({ parts: stats.parts }, 'the final text of a reply did not land');
    logger.debug({ ...stats }, 'reply finished');
    deps.onFinished?.({ ...stats });
    return { ...stats };
  }

  function finish(outcome: ReplyOutcome): Promise<DeliveryStats> {
    if (mode.kind === 'finished') return mode.done;
    const next: ReplyMode = { kind: 'finished', from: mode, done: writeFinal(mode, outcome) };
    move(next, 'finish');
    return next.done;
  }

  /** Every message posted so far landed (and a stream start in flight answered). */
  async function posted(): Promise<void> {
    await Promise.all([...[controlOf(mode), ...parts.slots].map((s) => s?.posted), laneOf(mode)?.startSettled()]);
  }

  function append(chunk: PartialChunk): void {
    if (mode.kind === 'finished') {
      logger.debug({ role: chunk.role }, 'partial after finish ignored');
      return;
    }
    if (!chunk.text) return;
    firstAppendAt ??= now();
    if (chunk.role === 'thinking') {
      thinking.add(chunk.text);
    } else {
      const wasThinking = thinking.shown !== undefined;
      thinking.clear();
      answer += chunk.text;
      if (mode.kind === 'streaming') {
        mode.lane.push(chunk.text);
        if (wasThinking) update();
        return;
      }
      liveText += chunk.text;
      splitIfNeeded();
    }
    update();
  }

  return {
    get mode() {
      return mode.kind;
    },
    get messages() {
      return parts.messages;
    },
    setStatus(next) {
      if (mode.kind === 'finished') return;
      status = next;
      update();
    },
    append,
    continueBelow,
    posted,
    postPrompt(render) {
      return postPrompt({
        surface, pool: deps.pool, conversation, now, logger, stats, maxAttempts: deps.maxAttempts,
        after: posted,
        // the live part goes on below the prompt and says it waits, until the prompt is decided
        onShown: () => { promptsWaiting++; continueBelow(); },
        onDecided: () => { promptsWaiting--; update(); },
      }, render);
    },
    outputEnded() {
      if (mode.kind === 'finished') return;
      const control = controlOf(mode);
      for (const slot of control ? [...parts.slots, control] : parts.slots) slot.holdLive(OUTPUT_END_HOLD_MS);
    },
    addNotice(text) {
      if (mode.kind !== 'finished') notices.push(text);
    },
    finish,
  };
}
