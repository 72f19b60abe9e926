/**
 * What a StreamLane is (its state union) and what it hands back at the end. The transitions live
 * on StreamLane (stream-lane.ts): opened, closed, park, beginFinish, fallBack, giveWay.
 */
import type { NativeStream } from './surface.js';

/** What finish() leaves to post + edit: text not streamed ('' = none) and whether anything streamed. */
export interface LaneEnd {
  leftover: string;
  streamed: boolean;
}

/**
 * The lane's state, as ONE value, changed only by opened/closed/park/beginFinish/fallBack/giveWay:
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

