import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runWrapper, runWithoutCli, runStoppedBy, turn, argvOf, stdinOf, makeTempDir, removeDir, alive, type WireEvent } from './wrapper-harness.js';

const SID = 'c1a0de00-0000-4000-8000-000000000001';
const BASE_ARGV = ['-p', '--output-format', 'stream-json', '--input-format', 'stream-json', '--verbose', '--include-partial-messages'];

test('claude: streams thinking and text deltas, one line per tool use, result with usage; message only on stdin', async () => {
  const r = await runWrapper({ wrapper: 'claude-code', turn: turn('--version; run the tests') });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.events, [
    { type: 'partial', text: 'The user wants ', role: 'thinking', session_id: SID },
    { type: 'partial', text: 'the tests run.', role: 'thinking', session_id: SID },
    { type: 'partial', text: 'Run', session_id: SID },
    { type: 'partial', text: 'ning the tests.', session_id: SID },
    { type: 'partial', text: '\nRunning Bash: npm test\n', role: 'thinking', session_id: SID },
    { type: 'partial', text: '\n\nAll 3 tests pass.', session_id: SID },
    {
      type: 'result', text: 'All 3 tests pass.', session_id: SID,
      usage: { input_tokens: 1110, output_tokens: 20, total_tokens: 1130, cache_read_input_tokens: 1000, cache_creation_input_tokens: 100, cost_usd: 0.0123, duration_ms: 1234, num_turns: 2 },
    },
  ]);
  assert.deepEqual(argvOf(r.log), [...BASE_ARGV, '--dangerously-skip-permissions', '--disallowedTools', 'AskUserQuestion']);
  assert.deepEqual(stdinOf(r.log), [{ type: 'user', message: { role: 'user', content: [{ type: 'text', text: '--version; run the tests' }] }, parent_tool_use_id: null }]);
  assert.ok(r.log.some((f) => f.stdinEnd === true), 'claude stdin is closed so the CLI can exit');
});

test('claude: resume passes --resume and stamps the inbound session id from the first event', async () => {
  const r = await runWrapper({ wrapper: 'claude-code', turn: turn('again', { session_id: 'prev-session-42' }) });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(argvOf(r.log).slice(-1), ['--resume=prev-session-42']);
  assert.ok(r.events.length > 3);
  for (const ev of r.events) assert.equal(ev.session_id, 'prev-session-42');
});

test('claude: env knobs become flags (hub name CLAUDE_DISALLOW_TOOLS too); a configured permission mode replaces skip-permissions', async () => {
  const r = await runWrapper({
    wrapper: 'claude-code',
    turn: turn('hi'),
    env: { CLAUDE_MODEL: 'opus', CLAUDE_ALLOWED_TOOLS: 'Read, Grep', CLAUDE_DISALLOWED_TOOLS: 'WebSearch', CLAUDE_DISALLOW_TOOLS: 'WebFetch', CLAUDE_PERMISSION_MODE: 'acceptEdits', CLAUDE_MAX_TURNS: '7', ANTHROPIC_API_KEY: '' },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(argvOf(r.log), [...BASE_ARGV, '--permission-mode', 'acceptEdits', '--allowedTools', 'Read,Grep',
    '--disallowedTools', 'AskUserQuestion,WebSearch,WebFetch', '--model', 'opus', '--max-turns', '7']);
});

async function permissionRun(response: Record<string, unknown>) {
  const requests: WireEvent[] = [];
  const r = await runWrapper({
    wrapper: 'claude-code',
    turn: turn('[permission] delete the notes', { permission: true }),
    onEvent(ev, { send }) {
      if (ev.type !== 'permission_request') return;
      requests.push(ev);
      send({ type: 'permission_response', request_id: ev.request_id, ...response });
    },
  });
  const control = stdinOf(r.log).find((m) => m.type === 'control_response');
  return { r, requests, control };
}

test('claude: permission true uses --permission-prompt-tool stdio and lets questions through; allow without updated_input sends the original input', async () => {
  const { r, requests, control } = await permissionRun({ behavior: 'allow' });
  assert.equal(r.code, 0, r.stderr);
  const argv = argvOf(r.log);
  // AskUserQuestion is allowed: a question reaches the chat as a permission request.
  assert.deepEqual(argv, [...BASE_ARGV, '--permission-prompt-tool', 'stdio', '--permission-mode', 'default']);
  assert.deepEqual(requests, [{
    type: 'permission_request', request_id: 'req-7f3a', tool_name: 'Bash', input: { command: 'rm -f notes.txt', description: 'Remove notes' },
    description: 'Running Bash: rm -f notes.txt', tool_use_id: 'toolu_p1', session_id: SID,
  }]);
  assert.deepEqual(control, { type: 'control_response', response: { subtype: 'success', request_id: 'req-7f3a', response: { behavior: 'allow', updatedInput: { command: 'rm -f notes.txt', description: 'Remove notes' } } } });
  assert.deepEqual(r.events.at(-1), { type: 'result', text: 'Ran: rm -f notes.txt', session_id: SID, usage: r.events.at(-1)!.usage });
  assert.ok(r.log.some((f) => f.stdinEnd === true), 'the wrapper closes claude stdin after the result');
});

test('claude: allow with updated_input passes it as updatedInput', async () => {
  const { r, control } = await permissionRun({ behavior: 'allow', updated_input: { command: 'rm -f safe.txt' } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((control as any).response.response, { behavior: 'allow', updatedInput: { command: 'rm -f safe.txt' } });
  assert.equal(r.events.at(-1)!.text, 'Ran: rm -f safe.txt');
});

test('claude: deny carries the message back to claude', async () => {
  const { r, control } = await permissionRun({ behavior: 'deny', message: 'not today' });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((control as any).response.response, { behavior: 'deny', message: 'not today' });
  assert.ok(r.events.some((e) => e.type === 'partial' && e.text === 'Not run: not today'));
});

test('claude: an error result becomes an error event that keeps the session id; exit non-zero', async () => {
  const r = await runWrapper({ wrapper: 'claude-code', turn: turn('[error] hi') });
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [{
    type: 'error', session_id: SID, usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, cost_usd: 0, duration_ms: 50, num_turns: 1 },
    message: 'API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
  }]);
});

test('claude: API retries are thinking lines; the synthetic error message is not an answer; retries bounded to 4 by default', async () => {
  const r = await runWrapper({ wrapper: 'claude-code', turn: turn('[api-error] hi') });
  assert.equal(r.code, 1);
  const msg = 'API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.';
  assert.deepEqual(r.events, [
    { type: 'partial', text: 'API error 529 (overloaded), retrying (1/4)…\n', role: 'thinking', session_id: SID },
    { type: 'partial', text: 'API error 529 (overloaded), retrying (2/4)…\n', role: 'thinking', session_id: SID },
    { type: 'error', message: msg, session_id: SID, usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, cost_usd: 0, duration_ms: 2300, num_turns: 1 } },
  ]);
  assert.equal(r.log[0]!.maxRetries, '4');
});

test('claude: CLAUDE_CODE_MAX_RETRIES from the profile wins over the chat default', async () => {
  const r = await runWrapper({ wrapper: 'claude-code', turn: turn('hi'), env: { CLAUDE_CODE_MAX_RETRIES: '0' } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.log[0]!.maxRetries, '0');
});

test('claude: after claude exits, SIGTERM still reaches a tool of its that holds the pipes (the whole group)', async () => {
  const r = await runWrapper({
    wrapper: 'claude-code',
    turn: turn('[orphan] hi'),
    // Once the wrapper has seen claude exit (so only the group can still reach the tool).
    onStderr(c, { child }) { if (c.includes('[wrapper] claude exited with code 0; waiting')) child.kill('SIGTERM'); },
  });
  assert.equal(r.code, 143);
  assert.equal(r.events.at(-1)!.message, 'claude was stopped (SIGTERM)');
  const toolPid = Number(r.log.find((f) => f.toolPid)?.toolPid);
  assert.ok(toolPid > 0);
  assert.equal(alive(toolPid), false, 'the tool is gone');
});

test('claude: a crash without a result is an error with the stderr tail, never a success', async () => {
  const r = await runWrapper({ wrapper: 'claude-code', turn: turn('[crash] hi') });
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [
    { type: 'partial', text: 'Starting', session_id: SID },
    { type: 'error', message: 'claude exited with code 3 without a result: fatal: the fake claude crashed', session_id: SID },
  ]);
});

test('claude: missing CLI gives the install hint', async () => {
  const r = await runWithoutCli('claude-code');
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [{ type: 'error', message: 'claude not found: install with npm i -g @anthropic-ai/claude-code' }]);
});

test('claude: SIGTERM is forwarded to the CLI and the wrapper exits 143 after an error event', async () => {
  const r = await runStoppedBy('claude-code', 'SIGTERM');
  assert.equal(r.code, 143);
  assert.deepEqual(r.events.at(-1), { type: 'error', message: 'claude was stopped (SIGTERM)', session_id: SID });
  assert.ok(r.log.some((f) => f.signal === 'SIGTERM'), 'the fake CLI got SIGTERM');
});

test('claude: image attachments become image blocks; other files are listed as paths', async () => {
  const dir = makeTempDir();
  try {
    const png = join(dir, 'shot.png');
    writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    const pdf = join(dir, 'spec sheet.pdf');
    const r = await runWrapper({
      wrapper: 'claude-code', dir,
      turn: turn('what is this?', { attachments: [
        { kind: 'image', url: pathToFileURL(png).href, mime_type: 'image/png', filename: 'shot.png' },
        { kind: 'file', url: pathToFileURL(pdf).href, filename: 'spec sheet.pdf' },
      ] }),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(stdinOf(r.log)[0].message.content, [
      { type: 'text', text: `what is this?\n\nAttached files:\n- ${pdf}` },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString('base64') } },
    ]);
  } finally {
    removeDir(dir);
  }
});

test('claude: an empty turn is an error before anything runs', async () => {
  const r = await runWrapper({ wrapper: 'claude-code', turn: turn('') });
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [{ type: 'error', message: 'empty turn: no message text and no attachments' }]);
  assert.deepEqual(r.log, []);
});

test('claude: stdin closed by the bridge while a request is open answers claude with deny', async () => {
  const r = await runWrapper({
    wrapper: 'claude-code',
    turn: turn('[permission] delete the notes', { permission: true }),
    onEvent(ev, { child }) { if (ev.type === 'permission_request') child.stdin!.end(); },
  });
  assert.equal(r.code, 0, r.stderr);
  const control = stdinOf(r.log).find((m) => m.type === 'control_response');
  assert.deepEqual(control.response.response, { behavior: 'deny', message: 'No permission response: the bridge closed stdin.' });
});
