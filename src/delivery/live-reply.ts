/**
 * LiveReply: one reply, edited live. Posts a progress message at once, renders output partials
 * into the answer and thinking apart from it, freezes a part at a clean boundary when the
 * answer would pass the platform limit, and writes the final state (see render.ts).
 *
 * With native streaming (Surface.streaming) the progress message becomes a control message
 * (status, thinking, Stop) and the answer streams into its own message (stream-lane.ts); the
 * control message is removed at the end. When streaming is not available or breaks, the reply
 * goes on with post + edit, decided once.
 */
import type { Logger } from '../log.js';
import type { PartialChunk } from '../protocol/types.js';
import type { LimiterPool } from './limiter-pool.js';
import { MessageSlot } from './message-slot.js';
import { StreamLane } from './stream-lane.js';
import { DEFAULT_STATUS, finalTail, renderFrozen, renderLive, toneOf, trimThinking } from './render.js';
import { splitMessage } from './split-message.js';
import type { Conversation, MessageContent, MessageRef, Surface } from './surface.js';
import type { DeliveryStats, LiveReply, LiveReplyOptions, ReplyOutcome } from './types.js';

export interface LiveReplyDeps {
  surface: Surface;
  pool: LimiterPool;
  conversation: Conversation;
  options?: LiveReplyOptions;
  now: () => number;
  logger: Logger;
  /** Consecutive non-429 failures per message before giving up (default 5). */
  maxAttempts?: number;
  /** Called once with the final stats (Delivery totals). */
  onFinished?: (stats: DeliveryStats) => void;
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
  /** Answer text of the live part (may start with a reopened code fence). */
  let liveText = '';
  /** Every output character appended, across parts. */
  let answer = '';
  let thinkingRun = '';
  let thinking: string | undefined;
  let firstAppendAt: number | undefined;
  let finishing: Promise<DeliveryStats> | undefined;

  const onShown = (content: MessageContent): void => {
    if (firstAppendAt === undefined || stats.firstTextLatencyMs !== undefined) return;
    if (content.text.trim() !== '' || (content.thinking ?? '').trim() !== '') stats.firstTextLatencyMs = now() - firstAppendAt;
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
  const slots: MessageSlot[] = [];
  const messages: MessageRef[] = [];
  let after: Promise<unknown> | undefined;

  function addSlot(content: MessageContent, final = false): MessageSlot {
    const slot = new MessageSlot(slotDeps, content, after);
    if (final) slot.set(content, true);
    adopt(slot);
    return slot;
  }

  function adopt(slot: MessageSlot): void {
    slots.push(slot);
    after = slot.posted;
    void slot.posted.then((ok) => {
      if (ok && slot.ref) messages[slots.indexOf(slot)] = slot.ref;
    });
  }

  const live = (): MessageSlot => slots[slots.length - 1]!;
  const liveContent = (): MessageContent => renderLive({ text: liveText, thinking, status, stopActionId });
  const controlContent = (): MessageContent => renderLive({ text: '', thinking, status, stopActionId });

  /** Native streaming: the control message (status, thinking, Stop) and the lane the answer streams in. */
  let control: MessageSlot | undefined;
  let lane: StreamLane | undefined;
  /** Messages the answer streamed into (kept when the lane falls back). */
  let streamed: readonly MessageRef[] = [];
  /** Removal of a control message that is no longer needed. */
  let retired: Promise<boolean> | undefined;
  if (surface.streaming && (surface.streaming.available?.(conversation) ?? true)) {
    control = new MessageSlot(slotDeps, controlContent());
    after = control.posted;
    lane = new StreamLane({
      streaming: surface.streaming,
      pool: deps.pool,
      conversation,
      recipient: opts.recipient,
      now,
      logger,
      stats,
      minIntervalMs: Math.max(0, caps.minEditIntervalMs),
      maxAttempts: deps.maxAttempts,
      after: control.posted,
      onShown: () => onShown({ text: 'streamed' }),
      onFallback: (leftover, didStream) => toEditPath(leftover, didStream),
    });
    streamed = lane.refs;
  }

  /** Streaming is over for this reply: the answer goes on with post + edit. */
  function toEditPath(leftover: string, didStream: boolean): void {
    const c = control!;
    control = undefined;
    lane = undefined;
    liveText = leftover;
    if (didStream) {
      addSlot(liveContent());
      retired = c.retire(renderFrozen(''));
    } else {
      adopt(c);
    }
    splitIfNeeded();
    update();
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
    if (control) control.set(controlContent());
    else live().set(liveContent());
  }

  if (!control) addSlot(liveContent());

  /** The final state through post + edit: `text` (answer + tail) split over the live part and new parts. */
  function finishParts(text: string, tone: NonNullable<MessageContent['tone']>): void {
    const parts = splitMessage(text, maxText);
    parts.forEach((part, i) => {
      const content: MessageContent = i === parts.length - 1 ? { text: part, tone } : renderFrozen(part);
      if (i === 0 && slots.length > 0) live().set(content, true);
      else addSlot(content, true);
    });
  }

  return {
    get messages() {
      return [...streamed, ...messages.filter((m) => m !== undefined)];
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

    addNotice(text) {
      if (!finishing) notices.push(text);
    },

    finish(outcome: ReplyOutcome) {
      finishing ??= (async () => {
        const tail = finalTail(answer, outcome, notices);
        const tone = toneOf(outcome);
        let landed = true;
        if (lane && control) {
          const end = await lane.finish(tail, tone);
          const c = control;
          if (!end.streamed) {
            adopt(c);
            finishParts(end.leftover, tone);
          } else {
            after = Promise.resolve();
            if (end.leftover !== '') finishParts(end.leftover, tone);
            retired = c.retire({ text: '', status: 'finished', tone });
          }
        } else {
          finishParts(liveText + tail, tone);
        }
        for (const slot of slots) {
          await slot.posted;
          if (!(await slot.settle())) landed = false;
        }
        if (retired) await retired;
        stats.parts = streamed.length + slots.filter((s) => s.ref !== undefined).length;
        if (!landed) logger.error({ parts: stats.parts }, 'the final text of a reply did not land');
        logger.debug({ ...stats }, 'reply finished');
        deps.onFinished?.({ ...stats });
        return { ...stats };
      })();
      return finishing;
    },
  };
}
