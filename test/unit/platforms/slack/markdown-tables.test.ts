import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMessage, tablesAsCode } from '../../../../src/platforms/slack/blocks.js';

test('a GFM table becomes an aligned code block; text around it is untouched', () => {
  const md = 'Results:\n\n| name | ms |\n|---|---:|\n| runner | 190 |\n| reference a\\|b | 583 |\n\nDone **ok**.';
  assert.equal(tablesAsCode(md), [
    'Results:', '',
    '```',
    'name           ms',
    '-------------  ---',
    'runner         190',
    'reference a|b  583',
    '```',
    '', 'Done **ok**.',
  ].join('\n'));
});

test('tables inside code fences and pipes in prose are left alone', () => {
  const md = '```\n| a | b |\n|---|---|\n| 1 | 2 |\n```\nuse a | b pipe';
  assert.equal(tablesAsCode(md), md);
  assert.equal(tablesAsCode('no table here'), 'no table here');
  assert.equal(tablesAsCode('a | b\n---\ntext'), 'a | b\n---\ntext', 'a setext heading, not a table');
});

test('the Slack answer block shows tables as code', () => {
  const real = renderMessage({ text: '| k | v |\n|---|---|\n| x | 1 |' }).blocks.find((b) => b.type === 'markdown') as { text: string };
  assert.equal(real.text, '```\nk  v\n-  -\nx  1\n```');
});
