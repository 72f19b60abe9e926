/**
 * TurnState.line, the runner's entry for each stdout line, against the reference: every
 * non-blank line classified by JSON.parse and applied. The dominant partial takes a lane of its
 * own in line(); whatever the sequence of lines, the turn must come out the same (body,
 * partials, notices, error, session id, usage, the events handed back, the log).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { classifyWithJsonParse, fastPartialText } from '../../../src/protocol/index.js';
import { TurnState } from '../../../src/runner/turn-state.js';
import { LineSplitter } from '../../../src/runner/line-splitter.js';
import type { AgentEvent, PartialChunk } from '../../../src/protocol/index.js';

function makeState(streaming: boolean, maxReplyBytes: number) {
  const log: string[] = [];
  const seen: PartialChunk[] = [];
  const sessions: string[] = [];
  const logger = {
    debug: (o: unknown, m?: string) => log.push(`debug ${JSON.stringify(o)} ${m ?? ''}`),
    info: (o: unknown, m?: string) => log.push(`info ${JSON.stringify(o)} ${m ?? ''}`),
    warn: (o: unknown, m?: string) => log.push(`warn ${JSON.stringify(o)} ${m ?? ''}`),
  };
  const state = new TurnState({ streaming, maxReplyBytes, logger, onPartial: (c) => seen.push(c), onSessionId: (id) => sessions.push(id) });
  return { state, log, seen, sessions };
}

function outcome(s: ReturnType<typeof makeState>, events: Array<AgentEvent | undefined>) {
  const { state } = s;
  return {
    reply: state.reply(), partials: state.partials, notices: state.notices, error: state.error, sessionId: state.sessionId,
    usage: state.usage, seen: s.seen, sessions: s.sessions, log: s.log, events,
  };
}

const text = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 30 }), fc.constantFrom('', 'a\nb', '"q"', '\\', 'é😀'));
const line = fc.oneof(
  { weight: 6, arbitrary: text.map((t) => JSON.stringify({ type: 'partial', text: t })) },
  { weight: 1, arbitrary: fc.tuple(text, fc.constantFrom('thinking', 'output')).map(([t, role]) => JSON.stringify({ type: 'partial', text: t, role })) },
  { weight: 1, arbitrary: fc.tuple(text, fc.constantFrom('s-1', 's-2', '-bad', 'a/b')).map(([t, id]) => JSON.stringify({ type: 'partial', text: t, session_id: id })) },
  { weight: 1, arbitrary: text.map((t) => JSON.stringify({ type: 'result', text: t, usage: { input_tokens: 1 } })) },
  { weight: 1, arbitrary: text.map((t) => JSON.stringify({ type: 'error', message: t })) },
  { weight: 1, arbitrary: fc.constantFrom('', '   ', '\t', 'not json', '[1]', '{"type":"partial","text":"raw\ttab"}', '{"type":"partial","text":"a","text":"b"}', '{"type":"partial","text":5}') },
  { weight: 1, arbitrary: fc.constant(JSON.stringify({ type: 'permission_request', request_id: 'r1', tool_name: 'Bash', input: { command: 'ls' } })) },
);

test('line(): the dominant partial lane and the JSON.parse lane give the same turn, whatever the lines', () => {
  fc.assert(fc.property(fc.array(line, { maxLength: 30 }), fc.boolean(), fc.integer({ min: 0, max: 60 }), fc.string({ maxLength: 5 }), (lines, streaming, maxReplyBytes, around) => {
    const viaLine = makeState(streaming, maxReplyBytes);
    const viaParse = makeState(streaming, maxReplyBytes);
    const lineEvents: Array<AgentEvent | undefined> = [];
    const parseEvents: Array<AgentEvent | undefined> = [];
    for (const l of lines) {
      // As the splitter hands it over: a range of a larger string.
      const chunk = `${around}${l}${around}`;
      lineEvents.push(viaLine.state.line(chunk, around.length, around.length + l.length));
      if (l.trim() === '') {
        parseEvents.push(undefined);
        continue;
      }
      const event = viaParse.state.apply(classifyWithJsonParse(l));
      // The dominant shape (fast-partial.test.ts proves fastPartialText agrees with JSON.parse) has no event handed back.
      parseEvents.push(fastPartialText(l) !== undefined ? undefined : event);
    }
    assert.deepEqual(outcome(viaLine, lineEvents), outcome(viaParse, parseEvents));
  }), { numRuns: 3000 });
});

test('line(): a dominant partial after an error is ignored, as any event after an error', () => {
  const s = makeState(true, 1024);
  s.state.line('{"type":"partial","text":"a"}', 0, 29);
  s.state.line('{"type":"error","message":"boom"}', 0, 33);
  assert.equal(s.state.line('{"type":"partial","text":"b"}', 0, 29), undefined);
  assert.deepEqual(s.state.partials, [{ text: 'a' }]);
  assert.equal(s.state.error, 'boom');
  assert.equal(s.state.reply(), '');
});

test('skipIgnored: lines passed over in one pass leave the turn as taking each line would', () => {
  // As in the runner: lines through the splitter, cut into chunks anywhere; one turn's sink
  // lets the turn pass over runs of dropped partials, the other takes every line. Small caps
  // and line limits bring truncation, streaming off, errors and oversized lines early.
  const ending = fc.constantFrom('\n', '\n', '\n', '\r\n');
  const dominant = fc.string({ minLength: 1, maxLength: 12 }).map((t) => JSON.stringify({ type: 'partial', text: t }));
  let passedOver = 0;
  fc.assert(fc.property(
    fc.array(fc.tuple(fc.oneof({ weight: 2, arbitrary: dominant }, { weight: 3, arbitrary: line }), ending), { maxLength: 40 }),
    fc.boolean(), fc.integer({ min: 0, max: 60 }), fc.constantFrom(1 << 20, 40, 80),
    fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 10 }),
    (lines, streaming, maxReplyBytes, maxLineBytes, cuts) => {
      const bytes = Buffer.from(lines.map(([l, e]) => l + e).join(''));
      const run = (skipping: boolean) => {
        const s = makeState(streaming, maxReplyBytes);
        const events: Array<AgentEvent | undefined> = [];
        const oversized: number[] = [];
        let skipped = 0;
        const splitter = new LineSplitter(maxLineBytes, {
          onLine: (t, a, b) => events.push(s.state.line(t, a, b)),
          onOversized: (n) => oversized.push(n),
          ...(skipping ? { skipIgnored: (t: string, a: number) => { const to = s.state.skipIgnored(t, a); if (to > a) skipped++; return to; } } : {}),
        });
        for (let pos = 0, i = 0; pos < bytes.length; pos += cuts[i++ % cuts.length]!) splitter.push(bytes.subarray(pos, pos + cuts[i % cuts.length]!));
        splitter.end();
        return { outcome: outcome(s, events.filter((e) => e !== undefined)), oversized, skipped };
      };
      const skipping = run(true);
      const taking = run(false);
      assert.deepEqual(skipping.outcome, taking.outcome);
      assert.deepEqual(skipping.oversized, taking.oversized);
      passedOver += skipping.skipped;
    },
  ), { numRuns: 3000 });
  assert.ok(passedOver > 500, `the lane was taken ${passedOver} times`);
});

test('skipIgnored: past the reply cap a chunk of partials is passed over in one step; before it, nothing is', () => {
  const partial = `${JSON.stringify({ type: 'partial', text: 'abcd' })}\n`;
  const s = makeState(true, 8);
  const chunk = partial.repeat(5);
  assert.equal(s.state.skipIgnored(chunk, 0), 0, 'within the cap every partial is taken');
  s.state.line(chunk, 0, partial.length - 1);
  s.state.line(chunk, partial.length, 2 * partial.length - 1);
  s.state.line(chunk, 2 * partial.length, 3 * partial.length - 1); // 12 bytes > 8: truncated
  assert.equal(s.state.notices.length, 1, 'the reply is truncated');
  assert.equal(s.state.skipIgnored(chunk, 3 * partial.length), chunk.length);
  s.state.line('{"type":"error","message":"boom"}', 0, 33);
  assert.equal(s.state.skipIgnored(chunk, 0), 0, 'after an error each line is logged: none is passed over');
});
