/**
 * The partial fast path against JSON.parse: it answers only where JSON.parse gives exactly
 * {type:"partial", text} and then with the same text; classifyLine answers exactly as the
 * JSON.parse classification on every line (test/unit/runner/turn-state.test.ts checks the
 * runner's own lane for such lines against the same classification).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { classifyLine, classifyWithJsonParse, fastPartialText, partialTextIn, type Classified } from '../../../src/protocol/index.js';
import { EMPTY_PARTIAL_LINE_LENGTH, isPartialLine, skipPartialLines } from '../../../src/protocol/classify.js';

const PREFIX = '{"type":"partial","text":"';

/** What JSON.parse says the fast path must answer: the text when the line is exactly that shape. */
function jsonParseText(line: string): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  const o = v as Record<string, unknown>;
  return keys.length === 2 && o.type === 'partial' && typeof o.text === 'string' ? o.text : undefined;
}

/** The one law: never a different answer than JSON.parse; declining is always allowed. */
function agrees(line: string): void {
  const fast = fastPartialText(line);
  if (fast !== undefined) assert.equal(fast, jsonParseText(line), `line ${JSON.stringify(line)}`);
  const slow = classifyWithJsonParse(line);
  assert.deepEqual(plain(classifyLine(line)), plain(slow), `classifyLine: ${JSON.stringify(line)}`);
}

const plain = (c: Classified) => ({ ...c, event: { ...c.event }, warnings: [...c.warnings] });

// Code units, not just code points: lone surrogates, controls, quotes and backslashes come often.
const unit = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('"', '\\', 'u', 'n', '/', 'b', 'f', 'r', 't', '0', 'd', 'D', 'F', 'e', '8', '}', '{', ',', ':', ' ') },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)) },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
);
const rawText = fc.array(unit, { maxLength: 40 }).map((a) => a.join(''));
const anyText = fc.oneof(rawText, fc.string({ unit: 'binary' }), fc.string());
const ws = fc.constantFrom('', ' ', '\t', '  ', '\r', '\n ');
const extraField = fc.oneof(
  fc.constant('"role":"thinking"'),
  fc.constant('"role":"output"'),
  fc.constant('"role":1'),
  fc.constant('"session_id":"s-1"'),
  fc.constant('"session_id":"a/b"'),
  fc.constant('"usage":{"x":1}'),
  fc.constant('"type":"result"'),
  fc.constant('"type":"partial"'),
  anyText.map((t) => `"text":${JSON.stringify(t)}`),
  fc.tuple(anyText, fc.jsonValue()).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`),
);

test('fast path: the dominant shape, whatever the text (escapes, unicode, surrogates)', () => {
  fc.assert(fc.property(anyText, (text) => {
    const line = JSON.stringify({ type: 'partial', text });
    assert.equal(fastPartialText(line), text, 'JSON.stringify output always takes the fast path');
    agrees(line);
  }), { numRuns: 5000 });
});

test('fast path: any literal between the prefix and "} (unescaped quotes, bad escapes, raw controls)', () => {
  fc.assert(fc.property(rawText, (content) => agrees(`${PREFIX}${content}"}`)), { numRuns: 20000 });
});

test('fast path: extra fields, duplicate keys, whitespace and key order go to JSON.parse or agree', () => {
  const line = fc.tuple(fc.array(extraField, { maxLength: 3 }), fc.array(extraField, { maxLength: 3 }), anyText, ws, ws, ws, fc.boolean())
    .map(([before, after, text, w1, w2, w3, typeFirst]) => {
      const core = typeFirst ? [`"type":${w1}"partial"`, `"text":${JSON.stringify(text)}`] : [`"text":${JSON.stringify(text)}`, `"type":"partial"`];
      return `{${w2}${[...before, ...core, ...after].join(`,${w3}`)}}${w1 === '\n ' ? '' : w1}`;
    });
  fc.assert(fc.property(line, agrees), { numRuns: 10000 });
});

test('fast path: mutations of a dominant line (a character inserted, dropped or replaced anywhere)', () => {
  const mutated = fc.tuple(anyText, fc.nat(), fc.constantFrom('insert', 'drop', 'replace'), unit).map(([text, at, how, c]) => {
    const line = JSON.stringify({ type: 'partial', text });
    const i = at % (line.length + 1);
    if (how === 'insert') return line.slice(0, i) + c + line.slice(i);
    if (how === 'drop') return line.slice(0, i) + line.slice(i + 1);
    return line.slice(0, i) + c + line.slice(i + 1);
  });
  fc.assert(fc.property(mutated, agrees), { numRuns: 20000 });
});

test('fast path: arbitrary strings and JSON values', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), agrees), { numRuns: 3000 });
  fc.assert(fc.property(fc.jsonValue(), (v) => agrees(JSON.stringify(v))), { numRuns: 3000 });
});

test('fast path: examples, taken or declined', () => {
  const taken: Array<[string, string]> = [
    ['{"type":"partial","text":""}', ''],
    ['{"type":"partial","text":"hello "}', 'hello '],
    ['{"type":"partial","text":"a\\nb\\t\\"q\\" \\\\ \\/"}', 'a\nb\t"q" \\ /'],
    ['{"type":"partial","text":"\\u00e9\\ud83d\\ude00 é😀"}', 'é😀 é😀'],
    ['{"type":"partial","text":"lone \\ud800 and \ud800 raw"}', 'lone \ud800 and \ud800 raw'],
    ['{"type":"partial","text":"a\\",\\"text\\":\\"b"}', 'a","text":"b'],
    ['{"type":"partial","text":"ends in a backslash \\\\"}', 'ends in a backslash \\'],
  ];
  for (const [line, text] of taken) {
    assert.equal(fastPartialText(line), text, line);
    agrees(line);
  }
  const declined = [
    '{"type":"partial","text":"a","text":"b"}', // duplicate key: JSON.parse keeps "b"
    '{"type":"partial","text":"a","type":"result"}',
    '{"type":"partial","text":"a","role":"thinking"}',
    '{"type":"partial","text":"a","session_id":"s"}',
    '{"type": "partial","text":"a"}',
    '{"type":"partial","text":"a"} ',
    '{"type":"partial","text":"a" }',
    '{"type":"partial","text":"a\\"}', // the closing quote is escaped
    '{"type":"partial","text":"a\\x"}', // not a JSON escape
    '{"type":"partial","text":"a\\u12"}',
    '{"type":"partial","text":"raw\nnewline"}',
    '{"type":"partial","text":"tab\there"}',
    '{"type":"partial","text":"}',
    '{"type":"partial","text":"a"}}',
    '{"type":"partial","text":5}',
  ];
  for (const line of declined) {
    assert.equal(fastPartialText(line), undefined, line);
    agrees(line);
  }
  assert.deepEqual(classifyLine('{"type":"partial","text":"a","text":"b"}').event, { type: 'partial', text: 'b' });
});

test('fast path: texts with few and with many escapes (decoded here, or by JSON.parse past 16) agree', () => {
  for (const n of [0, 1, 15, 16, 17, 100, 5000]) {
    const text = 'line\n\t"é\u0001\ud83d'.repeat(n).slice(0, n * 3);
    const line = JSON.stringify({ type: 'partial', text });
    assert.equal(fastPartialText(line), text, `${n}`);
    agrees(line);
  }
  fc.assert(fc.property(fc.array(fc.constantFrom('\n', '\\', '\"', '\u00e9', '\/', 'ab', 'x'), { minLength: 10, maxLength: 60 }), (parts) => agrees(`${PREFIX}${parts.join('')}"}`)), { numRuns: 3000 });
});

test('a line given as a range of a larger string: the same answer as the line cut out', () => {
  // The runner hands over a range of a decoded chunk. Whatever sits around the range (another
  // dominant line, a dangling escape, a closing "} that would let a match run past the end), the
  // answer is the one for the line alone.
  const around = fc.oneof(rawText, anyText.map((t) => JSON.stringify({ type: 'partial', text: t })), fc.constantFrom('', '\n', '"}', '\\"}', 'x"}\n{"type":"partial","text":"y"}'));
  const line = fc.oneof(anyText.map((t) => JSON.stringify({ type: 'partial', text: t })), rawText.map((c) => `${PREFIX}${c}"}`), rawText);
  fc.assert(fc.property(around, line, around, (before, l, after) => {
    const text = `${before}${l}${after}`;
    const start = before.length;
    const end = start + l.length;
    const fast = fastPartialText(l);
    assert.equal(partialTextIn(text, start, end), fast, JSON.stringify([before, l, after]));
    // The check alone (for a text that will be dropped) says the same, and knows an empty text by length.
    assert.equal(isPartialLine(text, start, end), fast !== undefined);
    if (fast !== undefined) assert.equal(fast === '', l.length === EMPTY_PARTIAL_LINE_LENGTH);
  }), { numRuns: 10000 });
  // The closing quote is real (the backslash before it is escaped): taken, whatever follows.
  const closed = `${PREFIX}a\\\\"}`;
  assert.equal(partialTextIn(`${closed}\n"}`, 0, closed.length), 'a\\');
  // The closing quote is escaped: the literal would run on past the range, so it is declined.
  const open = `${PREFIX}a\\"}`;
  assert.equal(fastPartialText(`${open}b"}`), 'a"}b');
  assert.equal(partialTextIn(`${open}b"}`, 0, open.length), undefined, 'the literal runs past the range: declined');
});

/**
 * skipPartialLines spelled out line by line: from `start`, pass over each line ended by "\n"
 * that, with one "\r" stripped as the splitter does, isPartialLine accepts with a non-empty text.
 */
function skipOneByOne(text: string, start: number): number {
  let at = start;
  for (;;) {
    const nl = text.indexOf('\n', at);
    if (nl === -1) return at;
    const end = nl > at && text.charCodeAt(nl - 1) === 0x0d ? nl - 1 : nl;
    if (!isPartialLine(text, at, end) || end - at === EMPTY_PARTIAL_LINE_LENGTH) return at;
    at = nl + 1;
  }
}

test('skipPartialLines: passes over exactly the newline-ended dominant partials with text, as line by line', () => {
  const line = fc.oneof(
    { weight: 4, arbitrary: anyText.map((t) => JSON.stringify({ type: 'partial', text: t })) },
    { weight: 1, arbitrary: rawText.map((c) => `${PREFIX}${c}"}`) },
    { weight: 1, arbitrary: fc.constantFrom('', '{"type":"partial","text":""}', '{"type":"result","text":"a"}', '{"type":"partial","text":"a","type":"error","message":"x"}', '{"type":"partial","text":"a"} ', 'x') },
  );
  const ending = fc.constantFrom('\n', '\r\n', '\r\r\n', '\n\r');
  fc.assert(fc.property(rawText, fc.array(fc.tuple(line, ending), { maxLength: 12 }), fc.string({ maxLength: 3 }), (before, lines, after) => {
    const text = before + lines.map(([l, e]) => l + e).join('') + after;
    for (const start of [before.length, 0]) {
      const to = skipPartialLines(text, start);
      assert.equal(to, skipOneByOne(text, start), JSON.stringify({ text, start }));
    }
  }), { numRuns: 5000 });
  // The last line of a chunk comes without its newline (the splitter keeps it): never passed over.
  const one = `${PREFIX}a"}`;
  assert.equal(skipPartialLines(`${one}\n${one}`, 0), one.length + 1);
  // An empty text is logged when dropped: it stops the run.
  assert.equal(skipPartialLines(`${one}\n${PREFIX}"}\n${one}\n`, 0), one.length + 1);
});
