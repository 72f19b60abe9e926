import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineSplitter } from '../../../src/runner/line-splitter.js';

function collect(max: number) {
  const lines: string[] = [];
  const oversized: number[] = [];
  const s = new LineSplitter(max, { onLine: (t, a, b) => lines.push(t.slice(a, b)), onOversized: (n) => oversized.push(n) });
  return { s, lines, oversized };
}

test('any chunking of any text gives the same lines as splitting it whole (UTF-8 safe)', () => {
  fc.assert(fc.property(
    fc.array(fc.string({ unit: 'grapheme' }).map((s) => s.replace(/[\r\n]/g, '')), { maxLength: 8 }),
    fc.boolean(), fc.boolean(),
    fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }),
    (lines, crlf, trailing, cuts) => {
      const text = lines.join(crlf ? '\r\n' : '\n') + (trailing && lines.length ? '\n' : '');
      const bytes = Buffer.from(text);
      const { s, lines: out } = collect(1 << 20);
      let pos = 0;
      let i = 0;
      while (pos < bytes.length) {
        const n = cuts[i++ % cuts.length]!;
        s.push(bytes.subarray(pos, pos + n));
        pos += n;
      }
      s.end();
      const expected = text.split(/\r?\n/);
      if (expected[expected.length - 1] === '') expected.pop(); // nothing after the last newline
      assert.deepEqual(out, expected);
    },
  ), { numRuns: 1500 });
});

test('a line over the limit is counted and dropped; the next line is intact', () => {
  const { s, lines, oversized } = collect(10);
  s.push(Buffer.from('short\n0123456789ABC'));
  s.push(Buffer.from('DEF\nnext\n'));
  s.end();
  assert.deepEqual(lines, ['short', 'next']);
  assert.deepEqual(oversized, [16]);
});

test('an oversized last line without newline is reported at end', () => {
  const { s, lines, oversized } = collect(4);
  s.push(Buffer.from('ok\n123456'));
  s.end();
  assert.deepEqual(lines, ['ok']);
  assert.deepEqual(oversized, [6]);
});

/** The splitter's contract spelled out simply: cut the whole input at newline bytes, decode each line alone. */
function referenceSplit(bytes: Buffer, max: number): { lines: string[]; oversized: number[] } {
  const lines: string[] = [];
  const oversized: number[] = [];
  let start = 0;
  for (;;) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl === -1 ? bytes.length : nl;
    if (nl !== -1 || end > start) {
      if (end - start > max) oversized.push(end - start);
      else {
        const line = bytes.subarray(start, end);
        lines.push((line.at(-1) === 0x0d ? line.subarray(0, -1) : line).toString('utf8'));
      }
    }
    if (nl === -1) return { lines, oversized };
    start = nl + 1;
  }
}

test('any bytes (invalid UTF-8, CR, empty lines), any chunking, any limit: as cut whole', () => {
  const byte = fc.oneof(fc.constantFrom(0x0a, 0x0d, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0xc3, 0xff, 0x22), fc.integer({ min: 0, max: 255 }));
  fc.assert(fc.property(
    fc.array(byte, { maxLength: 120 }), fc.integer({ min: 0, max: 40 }),
    fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 10 }),
    (arr, max, cuts) => {
      const bytes = Buffer.from(arr);
      const { s, lines, oversized } = collect(max);
      let pos = 0;
      let i = 0;
      while (pos < bytes.length) {
        const n = cuts[i++ % cuts.length]!;
        s.push(bytes.subarray(pos, pos + n));
        pos += n;
      }
      s.end();
      assert.deepEqual({ lines, oversized }, referenceSplit(bytes, max));
    },
  ), { numRuns: 3000 });
});
