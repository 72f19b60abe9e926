import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { splitMessage, splitMessageParts } from '../../../src/delivery/message/split-message.js';

const word = fc.stringMatching(/^[a-z]{1,12}$/);
const plainLine = fc.array(word, { minLength: 0, maxLength: 12 }).map((ws) => ws.join(' '));
const emoji = fc.constantFrom('😀', '🎉', 'é', '漢');
const longWord = fc.stringMatching(/^[a-z]{30,90}$/);
const fenceBlock = fc
  .tuple(fc.constantFrom('```', '```ts', '```python', '~~~', '````sh'), fc.array(plainLine, { maxLength: 8 }))
  .map(([open, lines]) => {
    const marker = open.startsWith('`') ? open.match(/^`+/)![0] : '~~~';
    return `\n${open}\n${lines.map((l) => `${l}\n`).join('')}${marker}\n`;
  });
const token = fc.oneof(
  { weight: 6, arbitrary: word.map((w) => `${w} `) },
  { weight: 2, arbitrary: fc.constant('\n') },
  { weight: 1, arbitrary: fc.constant('\n\n') },
  { weight: 1, arbitrary: emoji },
  { weight: 1, arbitrary: longWord },
  { weight: 1, arbitrary: fenceBlock },
);
const markdown = fc.array(token, { maxLength: 120 }).map((ts) => ts.join(''));
const maxChars = fc.integer({ min: 40, max: 400 });

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})/;
const fenceLines = (s: string): number => s.split('\n').filter((l) => FENCE_LINE.test(l)).length;

describe('splitMessage', () => {
  test('short text is one part, unchanged', () => {
    assert.deepEqual(splitMessage('hello', 10), ['hello']);
    assert.deepEqual(splitMessage('', 10), ['']);
  });

  test('rejects a non-positive limit', () => {
    assert.throws(() => splitMessage('abc', 0), RangeError);
  });

  test('prefers a paragraph break, then a line break, then a word break, then a hard cut', () => {
    assert.deepEqual(splitMessage('aaaa bbbb\ncccc\n\ndddd eeee', 20), ['aaaa bbbb\ncccc\n\n', 'dddd eeee']);
    assert.deepEqual(splitMessage('aaaa bbbb\ncccc dddd eeee', 20), ['aaaa bbbb\n', 'cccc dddd eeee']);
    assert.deepEqual(splitMessage('aaaa bbbb cccc dddd eeee', 20), ['aaaa bbbb cccc dddd ', 'eeee']);
    assert.deepEqual(splitMessage('a'.repeat(25), 10), ['a'.repeat(10), 'a'.repeat(10), 'a'.repeat(5)]);
  });

  test('a cut code fence is closed and reopened with the same info string', () => {
    const code = Array.from({ length: 10 }, (_, i) => `const v${i} = ${i};`).join('\n');
    const text = `intro\n\n\`\`\`ts\n${code}\n\`\`\`\nafter`;
    const parts = splitMessage(text, 80);
    assert.ok(parts.length > 1);
    for (const [i, p] of parts.entries()) {
      assert.ok(p.length <= 80, `part ${i} is ${p.length} long`);
      assert.equal(fenceLines(p) % 2, 0, `part ${i} has unbalanced fences: ${JSON.stringify(p)}`);
    }
    assert.ok(parts.slice(1).some((p) => p.startsWith('```ts\n')), 'reopened with ```ts');
  });

  test('never splits a surrogate pair', () => {
    const parts = splitMessage('😀'.repeat(20), 7);
    for (const p of parts) {
      assert.ok(!/^[\udc00-\udfff]/.test(p) && !/[\ud800-\udbff]$/.test(p), JSON.stringify(p));
    }
    assert.equal(parts.join(''), '😀'.repeat(20));
  });

  test('property: parts fit, and parts minus the added fence lines equal the input', () => {
    fc.assert(
      fc.property(markdown, maxChars, (text, max) => {
        const parts = splitMessageParts(text, max);
        let rebuilt = '';
        for (const p of parts) {
          assert.ok(p.text.length <= max, `part of ${p.text.length} > ${max}`);
          assert.ok(p.text.startsWith(p.prefix) && p.text.endsWith(p.suffix));
          const body = p.text.slice(p.prefix.length, p.text.length - p.suffix.length);
          if (text !== '') assert.ok(body.length > 0, 'every part carries input text');
          if (p.prefix) assert.match(p.prefix, /^(`{3,}|~{3,})[^\n]*\n$/);
          if (p.suffix) assert.match(p.suffix, /^\n?(`{3,}|~{3,})$/);
          rebuilt += body;
        }
        assert.equal(rebuilt, text);
      }),
      { numRuns: 600 },
    );
  });

  test('property: with balanced fences in the input, every part has balanced fences', () => {
    fc.assert(
      fc.property(markdown, maxChars, (text, max) => {
        for (const p of splitMessage(text, max)) assert.equal(fenceLines(p) % 2, 0, JSON.stringify(p));
      }),
      { numRuns: 600 },
    );
  });

  test('property: splitting is stable (a part never needs splitting again)', () => {
    fc.assert(
      fc.property(markdown, maxChars, (text, max) => {
        for (const p of splitMessage(text, max)) assert.deepEqual(splitMessage(p, max), [p]);
      }),
      { numRuns: 300 },
    );
  });

  test('property: tiny limits still make progress and keep the text', () => {
    fc.assert(
      fc.property(markdown, fc.integer({ min: 1, max: 12 }), (text, max) => {
        const parts = splitMessageParts(text, max);
        assert.equal(parts.map((p) => p.text.slice(p.prefix.length, p.text.length - p.suffix.length)).join(''), text);
        for (const p of parts) assert.ok(p.text.length <= Math.max(max, 2));
      }),
      { numRuns: 200 },
    );
  });
});
