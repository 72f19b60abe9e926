import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { neutralizeMentions, renderMessage, truncateMarkdown } from '../../../../src/platforms/slack/blocks.js';
import { renderPrompt } from '../../../../src/platforms/slack/prompt-blocks.js';
import { createMentionGuard } from '../../../../src/bridge/turns/execute-turn.js';

test('an answer renders as one markdown block with the notification text beside it', () => {
  const r = renderMessage({ text: '**bold** and `code`\n\n```js\nx < 1 && y\n```' });
  assert.deepEqual(r.blocks, [{ type: 'markdown', text: '**bold** and `code`\n\n```js\nx < 1 && y\n```' }]);
  assert.equal(r.text, '**bold** and `code`\n\n```js\nx < 1 && y\n```');
});

test('thinking and status are muted context lines (escaped); Stop carries the opaque id', () => {
  const r = renderMessage({ text: '', thinking: 'is <b> & c', status: 'working…', tone: 'progress', stopActionId: 'stop-1' });
  assert.deepEqual(r.blocks.map((b) => b.type), ['context', 'context', 'actions']);
  assert.equal(JSON.stringify(r.blocks[0]).includes('is &lt;b&gt; &amp; c'), true);
  assert.deepEqual((r.blocks[2] as any).elements[0], { type: 'button', action_id: 'tb_stop', text: { type: 'plain_text', text: 'Stop' }, value: 'stop-1' });
  assert.equal(r.text, 'working…');
  const s = renderMessage({ text: 'x', status: 'working…', tone: 'progress' });
  assert.deepEqual(s.blocks.map((b) => b.type), ['markdown', 'context']);
  assert.match(JSON.stringify(s.blocks[1]), /hourglass_flowing_sand/);
});

test('the footer (usage) is a muted context line after the status, escaped; the fallback text stays the answer', () => {
  const r = renderMessage({ text: 'done', tone: 'success', status: 'finished', footer: '12 tokens in · 34 out · <$0.01>' });
  assert.deepEqual(r.blocks.map((b) => b.type), ['markdown', 'context', 'context']);
  assert.deepEqual((r.blocks[2] as any).elements, [{ type: 'mrkdwn', text: '12 tokens in · 34 out · &lt;$0.01&gt;' }]);
  assert.equal(r.text, 'done');
  assert.deepEqual(renderMessage({ text: 'x', footer: ' ' }).blocks.map((b) => b.type), ['markdown']);
});

test('an empty message still has a block; fallback text stays under chat.update\'s 4,000', () => {
  assert.equal(renderMessage({ text: '' }).blocks.length, 1);
  const long = renderMessage({ text: 'y'.repeat(5000) });
  assert.ok(long.text.length <= 3000);
  assert.equal((long.blocks[0] as any).text.length, 5000);
});

test('truncateMarkdown closes a fence it cut through', () => {
  const cut = truncateMarkdown('intro\n```js\n' + 'line\n'.repeat(100) + '```\nafter', 60);
  assert.equal((cut.match(/```/g) ?? []).length % 2, 0);
  assert.ok(cut.length <= 64);
  assert.equal(truncateMarkdown('short', 60), 'short');
});

test('prompt: pending has Allow once (primary) / Deny (danger) / Deny with reason with the prompt id; decided shows who, buttons gone', () => {
  const pending = renderPrompt({ promptId: 'p1', toolName: 'Bash', description: 'Run it', inputPreview: '{"command":"ls ```x```"}', state: 'pending' });
  const actions = pending.blocks.find((b) => b.type === 'actions') as any;
  assert.deepEqual(actions.elements.map((e: any) => [e.action_id, e.style, e.value, e.text.text]), [
    ['tb_allow', 'primary', 'p1', 'Allow once'], ['tb_deny', 'danger', 'p1', 'Deny'], ['tb_deny_reason', undefined, 'p1', 'Deny with reason'],
  ]);
  const code = (pending.blocks[1] as any).text.text as string;
  assert.equal((code.match(/```/g) ?? []).length, 2);
  const big = renderPrompt({ promptId: 'p1', toolName: 'Bash', inputPreview: '<'.repeat(5000), state: 'pending' });
  const bigCode = (big.blocks[1] as any).text.text as string;
  assert.ok(bigCode.length <= 3000 && bigCode.length > 2900, String(bigCode.length));
  assert.ok(bigCode.endsWith('&lt;\n… (truncated)\n```'), bigCode.slice(-30));
  const allowed = renderPrompt({ promptId: 'p1', toolName: 'Bash', inputPreview: '{}', state: 'allowed', decidedBy: { id: 'U1', name: 'ana' } });
  assert.equal(allowed.blocks.some((b) => b.type === 'actions'), false);
  assert.match(JSON.stringify(allowed.blocks), /Allowed by <@U1>/);
  assert.match(allowed.text, /Allowed by @ana/);
  const denied = renderPrompt({ promptId: 'p1', toolName: 'Bash', inputPreview: '{}', state: 'denied', decidedBy: { id: 'U2' } });
  assert.match(denied.text, /Denied by @U2/);
  const timeout = renderPrompt({ promptId: 'p1', toolName: 'Bash', inputPreview: '{}', state: 'timeout', note: 'no answer in 600 s' });
  assert.match(JSON.stringify(timeout.blocks), /Timed out - denied - no answer in 600 s/);
  assert.match(renderPrompt({ promptId: 'p1', toolName: 'Bash', inputPreview: '', state: 'expired' }).text, /Expired/);
});
