import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CustomIds, DISCORD_CAPABILITIES, readableText, renderMessage, renderPrompt } from '../../../../src/platforms/discord/index.js';
import { createLiveLimitFilter } from '../../../../src/platforms/discord/rate-limit-filter.js';

describe('discord render', () => {
  const ids = new CustomIds();

  it('fits the longest text plus thinking and status in 2,000 characters', () => {
    const body = renderMessage({
      text: 'x'.repeat(DISCORD_CAPABILITIES.maxTextChars),
      thinking: 'y'.repeat(DISCORD_CAPABILITIES.maxThinkingChars + 50),
      status: 's'.repeat(500),
      tone: 'progress',
      stopActionId: 'stop-1',
    }, ids);
    assert.ok(body.content.length <= 2000, String(body.content.length));
    const lines = body.content.split('\n');
    assert.ok(lines[1]!.startsWith('-# 💭 …'), 'thinking keeps its newest words');
    assert.ok(lines[2]!.startsWith('-# ⏳ '));
    assert.equal(body.components[0]!.components[0]!.custom_id, 'tb:stop:stop-1');
  });

  it('the footer (usage) is the last subtext line, one line, under the longest text of a finished message', () => {
    const body = renderMessage({ text: 'x'.repeat(DISCORD_CAPABILITIES.maxTextChars), tone: 'success', footer: '12 tokens in · 34 out\n· $0.0100' }, ids);
    assert.ok(body.content.length <= 2000, String(body.content.length));
    assert.equal(body.content.split('\n').at(-1), '-# 12 tokens in · 34 out · $0.0100');
    assert.equal(renderMessage({ text: 'a', footer: '# 5 tokens' }, ids).content, 'a\n-# 5 tokens', 'no heading out of the footer');
  });

  it('never sends empty content', () => {
    assert.equal(renderMessage({ text: '' }, ids).content, '…');
  });

  it('subtext cannot be turned into a heading by the thinking text', () => {
    const body = renderMessage({ text: 'a', thinking: '# big' }, ids);
    assert.equal(body.content, 'a\n-# 💭 # big');
  });

  it('custom ids stay within 100 characters and decode back', () => {
    const long = 'p'.repeat(150);
    const id = ids.encode('allow', long);
    assert.ok(id.length <= 100);
    assert.deepEqual(ids.decode(id), { action: 'allow', id: long });
    assert.deepEqual(ids.decode('tb:deny:abc'), { action: 'deny', id: 'abc' });
    assert.equal(ids.decode('other:thing'), undefined);
    assert.equal(ids.decode('tb:allow~unknownhash'), undefined);
  });

  it('prompts: code block survives backticks in the input, buttons only while pending', () => {
    const pending = renderPrompt({ promptId: 'p', toolName: 'Bash', inputPreview: 'a```b'.repeat(500), state: 'pending' }, ids);
    assert.ok(pending.content.length <= 2000);
    assert.equal(pending.content.split('```').length, 3);
    assert.deepEqual(pending.components[0]!.components.map((b) => (b.type === 2 ? b.label : b.placeholder)), ['Allow once', 'Deny', 'Deny with reason']);
    const denied = renderPrompt({ promptId: 'p', toolName: 'Bash', inputPreview: '{}', state: 'denied', decidedBy: { id: '1' } }, ids);
    assert.match(denied.content, /Denied\*\* by <@1>/);
    assert.deepEqual(denied.components, []);
  });

  it("prompts too long with the rule's lines fold the input, never what the rule matches", () => {
    const meaning = `npm test with any other arguments inside the workspace, ${'m'.repeat(500)} end of meaning`;
    const view = {
      promptId: 'p', toolName: 'Bash', description: 'd'.repeat(400), inputPreview: 'x'.repeat(1200), state: 'pending' as const,
      rule: `Bash(npm test:* ${'-o'.repeat(80)})`, ruleMeaning: meaning, ruleFor: { id: '42' }, deciders: { author: { id: '42' }, users: ['7', '8'], groups: [] },
    };
    const body = renderPrompt(view, ids);
    assert.ok(body.content.length <= 2000, `${body.content.length}`);
    assert.ok(body.content.includes(`${view.rule}\` for <@42>'s requests`), 'the rule whole');
    assert.ok(body.content.includes('end of meaning'), 'what it matches, whole');
    assert.match(body.content, /-# <@42> or an approver \(<@7>, <@8>\) may decide/);
    assert.equal(body.content.split('```').length, 3, 'the code block is closed');
    assert.deepEqual(body.components.map((r) => r.components.map((b) => (b.type === 2 ? b.label : b.placeholder))), [
      ['Allow once', 'Allow for this thread', 'Deny', 'Deny with reason'], ['Allow for everyone in this thread', 'Show full input'],
    ]);
  });

  it('mentions become readable; the bot mention goes; indentation stays', () => {
    const names = { botId: '111', user: (id: string) => (id === '222' ? 'Bob' : undefined), role: () => 'ops', channel: () => 'general' };
    assert.equal(readableText('<@111> hi <@!222> <@333> <@&9> <#8>\n    indented', names), 'hi @Bob @333 @ops #general\n    indented');
    assert.equal(readableText('ask <@!111> now', names), 'ask now');
  });
});

describe('discord live rate-limit filter', () => {
  const data = (method: string, route: string, url: string) => ({
    method, route, url, global: false, hash: 'h', limit: 5, majorParameter: '1', retryAfter: 1000, scope: 'user' as const, sublimitTimeout: 0, timeToReset: 1000,
  });
  it('rejects only after a real 429 on a live route, once per 429', () => {
    const f = createLiveLimitFilter();
    const url = 'http://x/api/v10/channels/123456789012345678/messages/223456789012345678';
    assert.equal(f.shouldReject(data('PATCH', '/channels/:id/messages/:id', url)), false, 'proactive wait: discord.js waits');
    f.onResponse({ method: 'PATCH', path: '/channels/123456789012345678/messages/223456789012345678' }, { status: 429 });
    assert.equal(f.shouldReject(data('PATCH', '/channels/:id/messages/:id', url)), true);
    assert.equal(f.shouldReject(data('PATCH', '/channels/:id/messages/:id', url)), false);
    f.onResponse({ method: 'POST', path: '/channels/1/typing' }, { status: 429 });
    assert.equal(f.shouldReject(data('POST', '/channels/:id/typing', 'http://x/api/v10/channels/1/typing')), false, 'typing waits');
  });
});
