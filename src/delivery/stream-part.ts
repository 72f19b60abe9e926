/**
 * Where a streamed part may go: pure text arithmetic for StreamLane. A part that would pass the
 * stream's `max` characters ends at a clean boundary (an open code fence is closed and reopened
 * in the next part); near the limit only whole lines go out.
 */
import { openFenceAt, splitMessageParts } from './split-message.js';

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
