/** A RecordingSurface with native streaming (start / append / stop recorded), for delivery tests. */
import type { MessageContent, MessageRef } from '../../../src/chat.js';
import assert from 'node:assert/strict';
import type { NativeStreaming } from '../../../src/delivery/index.js';
import { RateLimitedError, TurnbridgeError } from '../../../src/errors.js';
import { createRecordingSurface, type RecordingSurface } from '../../fakes/recording-surface.js';

export interface FakeStream {
  ref: MessageRef;
  chunks: string[];
  stop?: MessageContent;
  ended: boolean;
}

export interface StreamingRig {
  surface: RecordingSurface;
  streams: FakeStream[];
  removed: string[];
  calls: string[];
  /** The markdown each start() was called with. */
  startedWith: string[];
  /** How many surface calls (post, edit, postPrompt, ...) were recorded when each start() was made. */
  startedAfterCalls: number[];
  /** What the next start() does. */
  start: 'stream' | 'null';
  /** Make the next append end the stream (like message_not_in_streaming_state). */
  endNextAppend: boolean;
  /** Answer the next N appends with 429. */
  limitAppends: number;
  text(s: FakeStream): string;
}

export function streamingRig(opts: { maxChars?: number; appendPerMinute?: number; startPerMinute?: number; minEditIntervalMs?: number; lateStart?: 'edit' | 'hand-over'; remove?: boolean } = {}): StreamingRig {
  const surface = createRecordingSurface({ maxTextChars: 4000, minEditIntervalMs: opts.minEditIntervalMs ?? 0 });
  const rig: StreamingRig = {
    surface, streams: [], removed: [], calls: [], startedWith: [], startedAfterCalls: [], start: 'stream', endNextAppend: false, limitAppends: 0,
    text: (s) => s.chunks.join('') + (s.stop?.text ?? ''),
  };
  const streaming: NativeStreaming = {
    maxChars: opts.maxChars ?? 1000,
    ...(opts.lateStart ? { lateStart: opts.lateStart } : {}),
    budgets: (op) => {
      if (op === 'append' && opts.appendPerMinute) return [{ key: 'test:append', perMinute: opts.appendPerMinute }];
      if (op === 'start' && opts.startPerMinute) return [{ key: 'test:start', perMinute: opts.startPerMinute }];
      return [];
    },
    async start(c, { markdown }) {
      rig.calls.push('start');
      rig.startedWith.push(markdown);
      rig.startedAfterCalls.push(surface.calls.length);
      if (rig.start === 'null') return null;
      assert.ok(markdown.length > 0 && markdown.length <= (opts.maxChars ?? 1000), `start with ${markdown.length} chars`);
      const s: FakeStream = { ref: { id: `stream-${rig.streams.length + 1}`, conversation: c }, chunks: [markdown], ended: false };
      rig.streams.push(s);
      return {
        ref: s.ref,
        get ended() { return s.ended; },
        async append(md) {
          rig.calls.push('append');
          if (rig.limitAppends > 0) {
            rig.limitAppends--;
            throw new RateLimitedError('429', 500);
          }
          if (rig.endNextAppend) {
            rig.endNextAppend = false;
            s.ended = true;
          }
          if (s.ended || s.stop) throw new TurnbridgeError('TB_PLATFORM_ERROR', 'message_not_in_streaming_state');
          s.chunks.push(md);
        },
        async stop(final) {
          rig.calls.push('stop');
          if (s.ended || s.stop) throw new TurnbridgeError('TB_PLATFORM_ERROR', 'message_not_in_streaming_state');
          s.stop = final;
        },
      };
    },
  };
  Object.assign(surface, { streaming });
  if (opts.remove !== false) Object.assign(surface, { remove: async (ref: MessageRef) => void rig.removed.push(ref.id) });
  return rig;
}

