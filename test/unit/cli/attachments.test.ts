import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attachmentFromUrl } from '../../../src/cli/attachments.js';
import { toJsonResult } from '../../../src/cli/json-result.js';

test('attachment kind by extension, ignoring query, fragment and case', () => {
  const kinds = (url: string) => attachmentFromUrl(url).kind;
  assert.equal(kinds('https://x.test/a/b.png'), 'image');
  assert.equal(kinds('https://x.test/a/b.JPG?w=1#top'), 'image');
  assert.equal(kinds('/local/photo.webp'), 'image');
  assert.equal(kinds('https://x.test/a.png/readme'), 'file', 'a dot in a directory is not an extension');
  assert.equal(kinds('https://x.test/report.pdf'), 'file');
  assert.equal(kinds('https://x.test/noext'), 'file');
  assert.equal(kinds('https://x.test/?file=a.png'), 'file');
  assert.deepEqual(attachmentFromUrl('https://x.test/a.gif'), { kind: 'image', url: 'https://x.test/a.gif' });
});

test('JSON result: key order, role only when given, notices always, usage only when present', () => {
  const base = { reply: 'r', sessionId: 's', error: null, exitCode: 0, partials: [{ text: 'a' }, { text: 'b', role: 'thinking' }], notices: [] };
  assert.equal(JSON.stringify(toJsonResult(base)), '{"reply":"ar","session_id":"s","error":null,"exit_code":0,"partials":[{"text":"a"},{"text":"b","role":"thinking"}],"notices":[]}');
  assert.equal(JSON.stringify(toJsonResult({ ...base, partials: [], notices: ['cut'], usage: { input_tokens: 1 } })),
    '{"reply":"r","session_id":"s","error":null,"exit_code":0,"partials":[],"notices":["cut"],"usage":{"input_tokens":1}}');
});
