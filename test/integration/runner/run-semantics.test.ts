import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../../src/runner/index.js';
import type { PartialChunk } from '../../../src/protocol/index.js';
import { agentProfile, scripted } from './helpers.js';

test('writes the turn object as one line with every field and closes stdin', async () => {
  const r = await run(scripted([{ echoTurn: true }]), { message: 'hi', sessionId: 'abc', sessionName: 'n', attachments: [{ kind: 'file', url: 'file:///x' }] }, {}, {});
  assert.equal(r.exitCode, 0);
  const turn = JSON.parse(r.reply);
  assert.deepEqual(turn, { type: 'turn', message: 'hi', session_id: 'abc', session_name: 'n', attachments: [{ kind: 'file', url: 'file:///x' }], permission: false, protocol_version: '0.4' });
  // stdin is at EOF right after the turn line
  const eof = await run(scripted([{ read: true }]), { message: 'hi' });
  assert.deepEqual(eof.partials, [{ text: '<eof>' }]);
});

test('defaults: empty session id and session name "default"', async () => {
  const r = await run(scripted([{ echoTurn: true }]), { message: 'x' });
  const turn = JSON.parse(r.reply);
  assert.equal(turn.session_id, '');
  assert.equal(turn.session_name, 'default');
  assert.deepEqual(turn.attachments, []);
});

test('streamed partials carry the body; a duplicate result text is not appended', async () => {
  const seen: PartialChunk[] = [];
  const r = await run(scripted([
    { line: { type: 'partial', text: 'Hello ' } },
    { line: { type: 'partial', text: 'world', role: 'output' } },
    { line: { type: 'result', text: 'Hello world', usage: { input_tokens: 3 } } },
  ]), { message: 'x' }, { onPartial: (c) => seen.push(c) });
  assert.equal(r.reply, '');
  assert.deepEqual(r.partials, [{ text: 'Hello ' }, { text: 'world', role: 'output' }]);
  assert.deepEqual(seen, r.partials);
  assert.deepEqual(r.usage, { input_tokens: 3 });
  assert.equal(r.error, null);
});

test('result text is the body when no output partial was forwarded (thinking does not count)', async () => {
  const r = await run(scripted([
    { line: { type: 'partial', text: 'hmm', role: 'thinking' } },
    { line: { type: 'result', text: 'Answer' } },
  ]), { message: 'x' });
  assert.equal(r.reply, 'Answer');
  assert.deepEqual(r.partials, [{ text: 'hmm', role: 'thinking' }]);
});

test('streaming false ignores partials and uses result.text', async () => {
  const seen: PartialChunk[] = [];
  const r = await run(scripted([
    { line: { type: 'partial', text: 'ignored' } },
    { line: { type: 'result', text: 'final' } },
  ], { streaming: false }), { message: 'x' }, { onPartial: (c) => seen.push(c) });
  assert.equal(r.reply, 'final');
  assert.deepEqual(r.partials, []);
  assert.deepEqual(seen, []);
});

test('role is kept only when a string; a non-string result text is an empty body', async () => {
  const r = await run(scripted([
    { line: { type: 'partial', text: 'a', role: 7 } },
    { line: { type: 'partial', text: 'b', role: 'thinking' } },
    { line: { type: 'result', text: { no: 1 } } },
  ]), { message: 'x' });
  assert.deepEqual(r.partials, [{ text: 'a' }, { text: 'b', role: 'thinking' }]);
  assert.equal(r.reply, '');
  assert.equal(r.exitCode, 0);
});

// Spec "Assembling the user-visible body": result.text is the body unless a partial was
// forwarded. An empty partial is never forwarded (dropped), so it cannot hide result.text, and
// no empty chunk reaches a chat or --json. The three forms an empty partial takes on the wire:
for (const [form, line] of [
  ['"text":""', { type: 'partial', text: '' }],
  ['a non-string text', { type: 'partial', text: 42 }],
  ['no text at all', { type: 'partial', role: 'output' }],
] as const) {
  test(`empty partial (${form}) is dropped: not forwarded, and result.text is the body`, async () => {
    const seen: PartialChunk[] = [];
    const r = await run(scripted([
      { line },
      { line: { type: 'result', text: 'the body' } },
    ]), { message: 'x' }, { onPartial: (c) => seen.push(c) });
    assert.deepEqual(seen, [], 'nothing forwarded');
    assert.deepEqual(r.partials, []);
    assert.equal(r.reply, 'the body');
    assert.equal(r.exitCode, 0);
  });

  test(`empty partial (${form}) between real partials: the forwarded partials are the body, result.text is not appended`, async () => {
    const seen: PartialChunk[] = [];
    const r = await run(scripted([
      { line: { type: 'partial', text: 'Hello ' } },
      { line },
      { line: { type: 'partial', text: 'world' } },
      { line: { type: 'result', text: 'Hello world' } },
    ]), { message: 'x' }, { onPartial: (c) => seen.push(c) });
    assert.deepEqual(seen, [{ text: 'Hello ' }, { text: 'world' }]);
    assert.deepEqual(r.partials, seen);
    assert.equal(r.reply, '');
  });
}

test('first valid session id wins; invalid ones are dropped; a later different one is ignored', async () => {
  const ids: string[] = [];
  const r = await run(scripted([
    { line: { type: 'partial', text: 'a', session_id: '' } },
    { line: { type: 'partial', text: 'b', session_id: 'bad/id' } },
    { line: { type: 'partial', text: 'c', session_id: 'ctl\u0001' } },
    { line: { type: 'partial', text: 'd', session_id: 12 } },
    { line: { type: 'partial', text: 'e', session_id: 'org:proj:thread-42' } },
    { line: { type: 'result', text: '', session_id: 'other' } },
  ]), { message: 'x' }, { onSessionId: (id) => ids.push(id) });
  assert.equal(r.sessionId, 'org:proj:thread-42');
  assert.deepEqual(ids, ['org:proj:thread-42']);
});

test('at most one result: a second one is ignored', async () => {
  const r = await run(scripted([{ line: { type: 'result', text: 'one' } }, { line: { type: 'result', text: 'two' } }]), { message: 'x' });
  assert.equal(r.reply, 'one');
});

test('after an error no partial is forwarded and a later result is discarded; empty message still fails', async () => {
  const r = await run(scripted([
    { line: { type: 'partial', text: 'before ', session_id: 's9' } },
    { line: { type: 'error' } },
    { line: { type: 'partial', text: 'after' } },
    { line: { type: 'result', text: 'late' } },
    { line: { type: 'error', message: 'second' } },
  ]), { message: 'x' });
  assert.equal(r.exitCode, 1);
  assert.match(r.error ?? '', /error without a message/);
  assert.deepEqual(r.partials, [{ text: 'before ' }]);
  assert.equal(r.reply, '');
  assert.equal(r.sessionId, 's9', 'session id kept on a failed turn');
});

test('error event wins over a zero exit and over a non-zero exit code', async () => {
  const a = await run(scripted([{ line: { type: 'error', message: 'rate limited', usage: { output_tokens: 1 } } }, { exit: 0 }]), { message: 'x' });
  assert.equal(a.exitCode, 1);
  assert.equal(a.error, 'rate limited');
  assert.deepEqual(a.usage, { output_tokens: 1 });
  const b = await run(scripted([{ line: { type: 'error', message: 'boom' } }, { exit: 7 }]), { message: 'x' });
  assert.equal(b.exitCode, 1);
  assert.equal(b.error, 'boom');
});

test('a non-zero exit without an error event is a readable error with a stderr tail; partials are kept', async () => {
  const r = await run(scripted([
    { line: { type: 'partial', text: 'half' } },
    { stderr: 'line one\nTraceback: something broke\n' },
    { exit: 3 },
  ]), { message: 'x' });
  assert.equal(r.exitCode, 3);
  assert.match(r.error ?? '', /exited with code 3/);
  assert.match(r.error ?? '', /something broke/);
  assert.deepEqual(r.partials, [{ text: 'half' }]);
});

test('a successful turn with no output at all is a success with an empty body', async () => {
  const r = await run(scripted([]), { message: 'x' });
  assert.equal(r.exitCode, 0);
  assert.equal(r.error, null);
  assert.equal(r.reply, '');
});

test('malformed lines are logged and ignored, never shown', async () => {
  const r = await run(scripted([
    { line: 'not json' },
    { line: '[1,2]' },
    { line: '"str"' },
    { line: { text: 'no type' } },
    { line: { type: 'text', text: '0.3 body' } },
    { line: { type: 'session', id: 'x' } },
    { line: { type: 'result', text: 'ok' } },
  ]), { message: 'x' });
  assert.equal(r.reply, 'ok');
  assert.equal(r.sessionId, '');
});

test('lines are read across chunk boundaries: split UTF-8, CRLF, last line without newline', async () => {
  const line = Buffer.from(JSON.stringify({ type: 'partial', text: 'héllo 世界 🎉' }) + '\r\n');
  const cut = line.indexOf(Buffer.from('世')) + 1; // inside the 3-byte character
  const cut2 = line.indexOf(Buffer.from('🎉')) + 2; // inside the 4-byte emoji
  const r = await run(scripted([
    { hex: line.subarray(0, cut).toString('hex') },
    { sleep: 30 },
    { hex: line.subarray(cut, cut2).toString('hex') },
    { sleep: 30 },
    { hex: line.subarray(cut2).toString('hex') },
    { raw: JSON.stringify({ type: 'result', text: 'end' }) },
  ]), { message: 'x' });
  assert.deepEqual(r.partials, [{ text: 'héllo 世界 🎉' }]);
  assert.ok(!r.partials[0]!.text.includes('\uFFFD'));
  assert.equal(r.reply, '', 'result after a forwarded partial adds nothing');
  assert.equal(r.exitCode, 0);
});

test('a last line without newline at EOF is read', async () => {
  const r = await run(scripted([{ raw: JSON.stringify({ type: 'result', text: 'tail' }) }]), { message: 'x' });
  assert.equal(r.reply, 'tail');
});

test('an empty turn is refused without spawning', async () => {
  let spawned = false;
  const r = await run(scripted([]), { message: '' }, { onSpawn: () => { spawned = true; } });
  assert.equal(spawned, false);
  assert.match(r.error ?? '', /empty/);
  const withFile = await run(scripted([{ line: { type: 'result', text: 'ok' } }]), { message: '', attachments: [{ kind: 'image', url: 'file:///a.png' }] });
  assert.equal(withFile.reply, 'ok', 'attachment-only turn is valid');
});

test('the kept body is capped with a visible notice', async () => {
  const r = await run(scripted([
    { line: { type: 'partial', text: 'a'.repeat(600) } },
    { line: { type: 'partial', text: 'b'.repeat(600) } },
    { line: { type: 'result', text: '' } },
  ]), { message: 'x' }, {}, { maxReplyBytes: 1000 });
  assert.equal(r.partials.length, 1);
  assert.equal(r.notices.length, 1);
  assert.match(r.notices[0]!, /truncated/);
});

test('the agent sees exactly the environment its profile composes (env, ${VAR}, {{SESSION_ID}}; bridge secrets left out)', async () => {
  const p = { ...agentProfile('env-dump.mjs'), env: { DECLARED: '${DECLARED}', SID: '{{SESSION_ID}}' } };
  const r = await run(p, { message: 'x', sessionId: 'abc' }, {}, { env: { PATH: process.env.PATH, DECLARED: 'ok', SLACK_BOT_TOKEN: 'xoxb-1', SECRET: 's' } });
  const seen = JSON.parse(r.reply);
  assert.equal(seen.env.DECLARED, 'ok');
  assert.equal(seen.env.SID, 'abc');
  assert.equal(seen.env.SLACK_BOT_TOKEN, undefined);
  assert.equal(seen.env.SECRET, undefined);
  assert.deepEqual(Object.keys(seen.env).filter((k) => !['PATH', 'DECLARED', 'SID'].includes(k)).filter((k) => !k.startsWith('__CF') && k !== 'PWD'), []);
});
