/**
 * LiveReply: one reply, edited live. Posts a progress message at once, renders output partials
 * into the answer and thinking apart from it, freezes a part at a clean boundary when the
 * answer would pass the platform limit, and writes the final state (see render.ts).
 *
 * With native streaming (Surface.streaming) the progress message becomes a control message
 * (status, thinking, Stop) and the answer streams into its own message (stream-lane.ts); the
 * control message is removed at the end. When streaming is not available or breaks, the reply
 * goes on with post + edit, decided once. When the first stream start would wait for budget, the
 * answer shows on the control message through edits (post + edit for good, or until the stream
 * starts and carries the rest: NativeStreaming.lateStart), so first text is never slow.
 *
 * continueBelow() (after a permission prompt) freezes the current part and goes on in a new
 * message below; after it the reply uses post + edit.
 */
import type { Logger } from '../log.js';
import type { PartialChunk } from '../protocol/types.js';
import type { LimiterPool } from './limiter-pool.js';
import { MessageSlot } from './message-slot.js';
import { postPrompt } from './prompt-post.js';
import { StreamLane } from './stream-lane.js';
import { DEFAULT_STATUS, finalTail, renderFrozen, renderLive, toneOf, trimThinking } from './render.js';
import { openFenceAt, splitMessage } from './split-message.js';
import type { Conversation, MessageContent, MessageRef, Surface } from './surface.js';
import type { DeliveryStats, JournalPart, LiveReply, LiveReplyOptions, ReplyOutcome } from './types.js';

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
   * (default: the surface's minEditIntervalMs, or 1000 ms when that is 0).
   */
  streamStartGraceMs?: number;
  /** Called once with the final stats (Delivery totals). */
  onFinished?: (stats: DeliveryStats) => void;
}

/** `text` with an open code fence at its end closed, and the opener the next part starts with. */
function closeFences(text: string): { frozen: string; reopen: string } {
  const fence = openFenceAt(text, text.length);
  if (!fence) return { frozen: text, reopen: '' };
  return { frozen: `${text}${text.endsWith('\n') ? '' : '\n'}${fence.closer}`, reopen: `${fence.opener}\n` };
}

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
  let thinkingRun = '';
  let thinking: string | undefined;
  let firstAppendAt: number | undefined;
  let finishing: Promise<DeliveryStats> | undefined;

  const onShown = (content: MessageContent): void => {
    journal();
    if (firstAppendAt === undefined || stats.firstTextLatencyMs !== undefined) return;
    if (content.text.trim() !== '' || (content.thinking ?? '').trim() !== '') stats.firstTextLatencyMs = now() - firstAppendAt;
  };
  /** Tell the recorder which messages the reply has and what each shows (after every landed call). */
  const journal = (): void => {
    if (!opts.onJournal) return;
    const part = (slot: MessageSlot): JournalPart[] =>
      slot.ref && !retiring.has(slot) && !slot.removed ? [{ kind: 'part', ref: slot.ref, ...(slot.shown ? { content: slot.shown } : {}) }] : [];
    const parts: JournalPart[] = [
      ...(control && !slots.includes(control) ? part(control) : []),
      ...slots.slice(0, streamAt).flatMap(part),
      ...streamed.map((ref): JournalPart => ({ kind: 'stream', ref })),
      ...slots.slice(streamAt).flatMap(part),
    ];
    opts.onJournal({ parts });
  };
  /** The first message of the reply reuses a message posted before a restart (at most once). */
  let reuse = opts.reuse;
  const takeReuse = (): MessageRef | undefined => {
    const r = reuse;
    reuse = undefined;
    return r;
  };
  const slotDeps = {
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
  /** The post + edit messages of the reply, in thread order (the control message too once it holds answer text). */
  const slots: MessageSlot[] = [];
  /** Slots deleted or being deleted: not settled at the end, not in `messages`. */
  const retiring = new Set<MessageSlot>();
  const retirements: Array<Promise<boolean>> = [];
  /** Work continueBelow() started that finish() must wait for. */
  const below: Array<Promise<void>> = [];
  let after: Promise<unknown> | undefined;

  function addSlot(content: MessageContent, final = false): MessageSlot {
    const slot = new MessageSlot(slotDeps, content, after, takeReuse());
    if (final) slot.set(content, true);
    adopt(slot);
    return slot;
  }

  function adopt(slot: MessageSlot): void {
    if (slots.includes(slot)) return;
    slots.push(slot);
    after = slot.posted;
  }

  function retire(slot: MessageSlot, fallback: MessageContent): void {
    retiring.add(slot);
    retirements.push(slot.retire(fallback));
  }

  const live = (): MessageSlot => slots[slots.length - 1]!;
  const liveContent = (): MessageContent => renderLive({ text: liveText, thinking, status, stopActionId });

  /** Native streaming: the control message (status, thinking, Stop) and the lane the answer streams in. */
  let control: MessageSlot | undefined;
  let lane: StreamLane | undefined;
  /** A lane whose first start waits for budget while the answer shows through edits (hand-over). */
  let parked: StreamLane | undefined;
  /** Messages the answer streamed into (kept when the lane falls back). */
  let streamed: readonly MessageRef[] = [];
  /** The streamed messages come after this many slots. */
  let streamAt = 0;
  const streaming = surface.streaming;
  if (streaming && (streaming.available?.(conversation) ?? true)) {
    control = new MessageSlot(slotDeps, liveContent(), undefined, takeReuse());
    after = control.posted;
    const handOver = streaming.lateStart === 'hand-over';
    lane = new StreamLane({
      streaming,
      pool: deps.pool,
      conversation,
      recipient: opts.recipient,
      now,
      logger,
      stats,
      minIntervalMs: Math.max(0, caps.minEditIntervalMs),
      maxAttempts: deps.maxAttempts,
      after: control.posted,
      startGraceMs: deps.streamStartGraceMs ?? (caps.minEditIntervalMs > 0 ? caps.minEditIntervalMs : 1000),
      onShown: () => onShown({ text: 'streamed' }),
      onFallback: (leftover, didStream) => toEditPath(leftover, didStream),
      ...(handOver ? { onPark: park, handOver: takeOver } : {}),
    });
    streamed = lane.refs;
  }

  /** Streaming is over for this reply: the answer goes on with post + edit. */
  function toEditPath(leftover: string, didStream: boolean): void {
    const c = control!;
    control = undefined;
    lane = undefined;
    if (didStream) {
      if (liveText === '') retire(c, renderFrozen(''));
      else c.set(renderFrozen(closeFences(liveText).frozen));
      liveText = leftover;
      addSlot(liveContent());
    } else {
      adopt(c);
      liveText += leftover;
    }
    splitIfNeeded();
    update();
  }

  /** The first start waits for budget: show the answer on the control message meanwhile. */
  function park(text: string): void {
    parked = lane;
    lane = undefined;
    adopt(control!);
    control = undefined;
    liveText += text;
    splitIfNeeded();
    update();
  }

  /**
   * The parked start's turn came: the live message keeps what it shows (or is about to show), the
   * stream starts below it with the rest. '' = the edits show everything: no stream for this reply.
   */
  function takeOver(): string {
    if (finishing || !parked) return '';
    const slot = live();
    const shown = slot.committedText;
    if (!liveText.startsWith(shown)) return '';
    const rest = liveText.slice(shown.length);
    if (rest.trim() === '') return '';
    const fence = shown === '' ? null : openFenceAt(liveText, shown.length);
    liveText = fence ? closeFences(shown).frozen : shown;
    control = slot;
    lane = parked;
    parked = undefined;
    streamAt = slots.length;
    update();
    return (fence ? `${fence.opener}\n` : '') + rest;
  }

  /** Freeze finished parts when the live text passed the limit; the rest stays live. */
  function splitIfNeeded(): void {
    if (liveText.length <= maxText) return;
    const parts = splitMessage(liveText, maxText);
    for (let i = 0; i < parts.length - 1; i++) {
      live().set(renderFrozen(parts[i]!));
      addSlot(renderFrozen(''));
    }
    liveText = parts[parts.length - 1]!;
  }

  function update(): void {
    if (finishing) return;
    (control ?? live()).set(liveContent());
  }

  if (!control) addSlot(liveContent());

  /** The final state through post + edit: `text` split over the live part (unless `fresh`) and new parts. */
  function finishParts(text: string, tone: NonNullable<MessageContent['tone']>, fresh = false): void {
    const parts = splitMessage(text, maxText);
    parts.forEach((part, i) => {
      const content: MessageContent = i === parts.length - 1 ? { text: part, tone } : renderFrozen(part);
      if (i === 0 && !fresh && slots.length > 0) live().set(content, true);
      else addSlot(content, true);
    });
  }

  /** continueBelow() while streaming: end the stream where it is; the control message keeps or drops its text. */
  function streamBelow(c: MessageSlot, l: StreamLane): void {
    const kept = liveText;
    const at = slots.length;
    liveText = '';
    addSlot(liveContent());
    below.push(l.finish('', undefined).then((end) => {
      const text = end.streamed ? kept : kept + end.leftover;
      // the stream could not be stopped with its last text: it goes first in the new part
      let carry = end.streamed ? end.leftover : '';
      if (text.trim() === '') {
        retire(c, renderFrozen(''));
        carry = text + carry;
      } else {
        c.set(renderFrozen(closeFences(text).frozen));
        if (!slots.includes(c)) slots.splice(at, 0, c);
      }
      if (carry !== '') {
        liveText = carry + liveText;
        splitIfNeeded();
        update();
      }
    }));
  }

  const refsOf = (list: MessageSlot[]): MessageRef[] =>
    list.filter((s) => s.ref !== undefined && !retiring.has(s)).map((s) => s.ref!);

  return {
    get messages() {
      return [...refsOf(slots.slice(0, streamAt)), ...streamed, ...refsOf(slots.slice(streamAt))];
    },

    setStatus(next) {
      if (finishing) return;
      status = next;
      update();
    },

    append(chunk: PartialChunk) {
      if (finishing) {
        logger.debug({ role: chunk.role }, 'partial after finish ignored');
        return;
      }
      if (!chunk.text) return;
      firstAppendAt ??= now();
      if (chunk.role === 'thinking') {
        thinkingRun += chunk.text;
        if (thinkingRun.length > 4 * caps.maxThinkingChars + 64) thinkingRun = thinkingRun.slice(-(2 * caps.maxThinkingChars + 32));
        thinking = trimThinking(thinkingRun, caps.maxThinkingChars) || undefined;
      } else {
        const wasThinking = thinking !== undefined;
        thinkingRun = '';
        thinking = undefined;
        answer += chunk.text;
        if (lane) {
          lane.push(chunk.text);
          if (wasThinking) update();
          return;
        }
        liveText += chunk.text;
        splitIfNeeded();
      }
      update();
    },

    continueBelow() {
      if (finishing) return;
      if (lane && control) {
        const c = control;
        const l = lane;
        control = undefined;
        lane = undefined;
        streamBelow(c, l);
        return;
      }
      if (parked) {
        const p = parked;
        parked = undefined;
        below.push(p.finish('', undefined).then(() => undefined));
      }
      const slot = live();
      if (liveText.trim() === '') {
        // no answer text in this part: delete it (its blank text moves on), or keep using it where
        // messages cannot be deleted
        if (!surface.remove) return;
        retire(slot, renderFrozen(''));
      } else {
        const { frozen, reopen } = closeFences(liveText);
        slot.set(renderFrozen(frozen));
        liveText = reopen;
      }
      addSlot(liveContent());
    },

    async posted() {
      await Promise.all([...[control, ...slots].map((s) => s?.posted), lane?.startSettled(), parked?.startSettled()]);
    },

    postPrompt(render) {
      return postPrompt({
        surface, pool: deps.pool, conversation, now, logger, stats, maxAttempts: deps.maxAttempts,
        after: () => this.posted(),
        onShown: () => this.continueBelow(),
      }, render);
    },

    addNotice(text) {
      if (!finishing) notices.push(text);
    },

    finish(outcome: ReplyOutcome) {
      finishing ??= (async () => {
        for (let i = 0; i < below.length; i++) await below[i];
        const tail = finalTail(answer, outcome, notices);
        const tone = toneOf(outcome);
        let landed = true;
        if (lane && control) {
          const end = await lane.finish(tail, tone);
          const c = control;
          if (!end.streamed) {
            adopt(c);
            finishParts(liveText + end.leftover, tone);
          } else {
            if (liveText === '') retire(c, { text: '', status: 'finished', tone });
            else c.set(renderFrozen(closeFences(liveText).frozen), true);
            after = Promise.resolve();
            if (end.leftover !== '') finishParts(end.leftover, tone, true);
          }
        } else {
          if (parked) await parked.finish('', undefined);
          finishParts(liveText + tail, tone);
        }
        for (const slot of slots) {
          if (retiring.has(slot)) continue;
          await slot.posted;
          if (!(await slot.settle())) landed = false;
        }
        await Promise.all(retirements);
        stats.parts = streamed.length + slots.filter((s) => s.ref !== undefined && !retiring.has(s)).length;
        if (!landed) logger.error({ parts: stats.parts }, 'the final text of a reply did not land');
        logger.debug({ ...stats }, 'reply finished');
        deps.onFinished?.({ ...stats });
        return { ...stats };
      })();
      return finishing;
    },
  };
}
