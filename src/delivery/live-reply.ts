/**
 * LiveReply: one reply, edited live. Posts a progress message at once, renders output partials
 * into the answer and thinking apart from it, freezes a part at a clean boundary when the
 * answer would pass the platform limit, and writes the final state (see render.ts).
 */
import type { Logger } from '../log.js';
import type { PartialChunk } from '../protocol/types.js';
import type { LimiterPool } from './limiter-pool.js';
import { MessageSlot } from './message-slot.js';
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

  function addSlot(content: MessageContent): MessageSlot {
    const previous = slots[slots.length - 1];
    const slot = new MessageSlot(slotDeps, content, previous?.posted);
    slots.push(slot);
    void slot.posted.then((ok) => {
      if (ok && slot.ref) messages[slots.indexOf(slot)] = slot.ref;
    });
    return slot;
  }

  const live = (): MessageSlot => slots[slots.length - 1]!;
  const liveContent = (): MessageContent => renderLive({ text: liveText, thinking, status, stopActionId });

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
    live().set(liveContent());
  }

  addSlot(liveContent());

  return {
    get messages() {
      return messages.filter((m) => m !== undefined);
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
        thinkingRun = '';
        thinking = undefined;
        liveText += chunk.text;
        answer += chunk.text;
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
        const parts = splitMessage(liveText + tail, maxText);
        const tone = toneOf(outcome);
        parts.forEach((text, i) => {
          const content: MessageContent = i === parts.length - 1 ? { text, tone } : renderFrozen(text);
          if (i === 0) live().set(content);
          else addSlot(content);
        });
        let landed = true;
        for (const slot of slots) {
          await slot.posted;
          if (!(await slot.settle())) landed = false;
        }
        stats.parts = slots.filter((s) => s.ref !== undefined).length;
        if (!landed) logger.error({ parts: stats.parts }, 'the final text of a reply did not land');
        logger.debug({ ...stats }, 'reply finished');
        deps.onFinished?.({ ...stats });
        return { ...stats };
      })();
      return finishing;
    },
  };
}
