/**
 * The StreamLane a live reply streams its answer in: built from the reply's deps, paced like its
 * post + edit messages, started after the control message's post. Hand-over callbacks are wired
 * only where the surface asks for them (NativeStreaming.lateStart 'hand-over').
 */
import type { LiveReplyDeps } from './live-reply.js';
import { StreamLane, type StreamLaneDeps } from './stream-lane.js';
import type { NativeStreaming } from './surface.js';
import type { DeliveryStats } from './types.js';

export type ReplyLaneCallbacks = Required<Pick<StreamLaneDeps, 'onShown' | 'onFallback' | 'onPark' | 'handOver'>>;

export function openReplyLane(
  deps: LiveReplyDeps, streaming: NativeStreaming, stats: DeliveryStats, after: Promise<unknown>, on: ReplyLaneCallbacks,
): StreamLane {
  const caps = deps.surface.capabilities;
  return new StreamLane({
    streaming,
    pool: deps.pool,
    conversation: deps.conversation,
    recipient: deps.options?.recipient,
    now: deps.now,
    logger: deps.logger,
    stats,
    minIntervalMs: Math.max(0, caps.minEditIntervalMs),
    maxAttempts: deps.maxAttempts,
    after,
    startGraceMs: deps.streamStartGraceMs ?? (caps.minEditIntervalMs > 0 ? caps.minEditIntervalMs : 1000),
    onShown: on.onShown,
    onFallback: on.onFallback,
    ...(streaming.lateStart === 'hand-over' ? { onPark: on.onPark, handOver: on.handOver } : {}),
  });
}
