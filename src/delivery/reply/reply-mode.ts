/**
 * The mode of one live reply, as ONE value. LiveReply changes it only in its named transitions
 * (startStream, fallBackToEdits, park, resumeStream, continueBelow, finish); a transition that is
 * not in MOVES is refused and logged, never half applied.
 *
 * The modes, what shows the answer in each and how it is left: docs/architecture.md, "States".
 */
import type { MessageSlot } from '../message/index.js';
import type { StreamLane } from '../stream/index.js';
import type { DeliveryStats, ReplyModeKind } from '../types.js';

/** Why a reply uses post + edit. */
export type EditingVia =
  /** The surface has no native streaming here. */
  | 'no-stream'
  /** The stream would not start or broke; the rest goes on with post + edit. */
  | 'fell-back'
  /** Parked, and at the start's turn the edits already showed everything: no stream for this reply. */
  | 'edits-caught-up'
  /** A permission prompt was posted below; the reply continues in a new message under it. */
  | 'continued-below';

export type ReplyMode =
  | { kind: 'editing'; via: EditingVia }
  /** `control`: the message with status, thinking and Stop (and any text shown before the stream took over). */
  | { kind: 'streaming'; control: MessageSlot; lane: StreamLane }
  /** The lane's first start waits for budget (hand-over): the answer shows through edits until it starts. */
  | { kind: 'parked'; lane: StreamLane }
  /** `from`: the mode finish() was called in (its control message and lane are wound up by the final state). */
  | { kind: 'finished'; from: LiveMode; done: Promise<DeliveryStats> };

/** A mode the reply can still change from. */
export type LiveMode = Exclude<ReplyMode, { kind: 'finished' }>;

/** The legal moves between modes. */
const MOVES: Record<ReplyModeKind, readonly ReplyModeKind[]> = {
  editing: ['finished'],
  streaming: ['editing', 'parked', 'finished'],
  parked: ['streaming', 'editing', 'finished'],
  finished: [],
};

/** The control message of a streamed reply (kept through finish until the final state removes or freezes it). */
export function controlOf(mode: ReplyMode): MessageSlot | undefined {
  const m = mode.kind === 'finished' ? mode.from : mode;
  return m.kind === 'streaming' ? m.control : undefined;
}

/** The reply's stream lane, if it has one (streaming or parked, also while finishing). */
export function laneOf(mode: ReplyMode): StreamLane | undefined {
  const m = mode.kind === 'finished' ? mode.from : mode;
  return m.kind === 'streaming' || m.kind === 'parked' ? m.lane : undefined;
}

export function canMove(from: ReplyModeKind, to: ReplyModeKind): boolean {
  return MOVES[from].includes(to);
}
