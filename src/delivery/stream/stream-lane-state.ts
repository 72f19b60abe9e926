/**
 * What a StreamLane is (its state union), the pure moves between states, and what the lane hands
 * back at the end. StreamLane (stream-lane.ts) applies them; park and fallBack live there (they
 * call back into the reply).
 */
import { openFenceAt, splitMessageParts } from '../message/index.js';
import type { NativeStream } from '../surface.js';

/** What finish() leaves to post + edit: text not streamed ('' = none) and whether anything streamed. */
export interface LaneEnd {
  leftover: string;
  streamed: boolean;
}

/**
 * The lane's state, as ONE value, changed only by opened, closed, beginFinish (below) and the lane's park and fallBack:
 * - live: the answer streams (`stream` open) or is about to (before the first start, between parts);
 * - parked: hand-over: the first start waits past its grace while the reply shows the answer through edits;
 * - finishing: finish() was called: no more pushes; the tail closes the open stream, if any;
 * - fallen: streaming is over for this reply; `leftover` is the text it could not stream (final).
 */
export type LaneState =
  | { kind: 'live'; stream?: NativeStream }
  | { kind: 'parked' }
  | { kind: 'finishing'; stream?: NativeStream }
  | { kind: 'fallen'; leftover: string };

/** The hand-over of a parked first start: asked for once, then retries resend what was handed. */
export interface LateStart {
  parked: boolean;
  handed: boolean;
  /** What the late start was made with. */
  markdown: string;
}


/** The open stream, if a part is streaming. */
export function streamOf(state: LaneState): NativeStream | undefined {
  return state.kind === 'live' || state.kind === 'finishing' ? state.stream : undefined;
}

export function fallenOf(state: LaneState): Extract<LaneState, { kind: 'fallen' }> | undefined {
  return state.kind === 'fallen' ? state : undefined;
}

/** A part's stream started: live (parked no more), or still finishing when it landed after finish(). */
export function opened(state: LaneState, stream: NativeStream): LaneState {
  if (state.kind === 'fallen') return state;
  return state.kind === 'finishing' ? { kind: 'finishing', stream } : { kind: 'live', stream };
}

/** The open part was stopped; the next one (if any) starts afresh. */
export function closed(state: LaneState): LaneState {
  if (state.kind === 'live') return { kind: 'live' };
  if (state.kind === 'finishing') return { kind: 'finishing' };
  return state;
}

/** No more pushes: the tail is coming. A fallen lane stays fallen; a second finish changes nothing. */
export function beginFinish(state: LaneState): LaneState {
  if (state.kind === 'fallen' || state.kind === 'finishing') return state;
  const stream = streamOf(state);
  return stream ? { kind: 'finishing', stream } : { kind: 'finishing' };
}

/*
 * Where a streamed part may go: pure text arithmetic. A part that would pass the stream's `max`
 * characters ends at a clean boundary (an open code fence is closed and reopened in the next
 * part); near the limit only whole lines go out.
 */

/** How the current part ends: text to close it with, text of the next part, and where `text` is cut. */
export interface PartCut {
  closing: string;
  rest: string;
  at: number;
}

/** `text` is too long for one part and `sent` characters of it are streamed: where the part ends. */
export function cutPart(text: string, sent: number, max: number): PartCut {
  const parts = splitMessageParts(text, max);
  const first = parts[0]!;
  const at = first.text.length - first.suffix.length;
  if (at >= sent) {
    return { closing: text.slice(sent, at) + first.suffix, rest: (parts[1]?.prefix ?? '') + text.slice(at), at };
  }
  // The clean boundary lies inside text already streamed: end the part where the stream is.
  const fence = openFenceAt(text, sent);
  const nl = text[sent - 1] === '\n' ? '' : '\n';
  return {
    closing: fence ? `${nl}${fence.closer}` : '',
    rest: (fence ? `${fence.opener}\n` : '') + text.slice(sent),
    at: sent,
  };
}

/**
 * How far `text` may be streamed now. Near the part limit only whole lines go out, so that a part
 * that must end where the stream already is ends at a line break.
 */
export function sendableEnd(text: string, max: number): number {
  if (text.length > max) return text.length;
  if (text.length <= max * 0.75) return text.length;
  return text.lastIndexOf('\n') + 1;
}
