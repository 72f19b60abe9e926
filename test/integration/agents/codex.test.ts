import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runWrapper, runWithoutCli, runStoppedBy, turn, argvOf, stdinOf, makeTempDir, removeDir } from './wrapper-harness.js';

const TID = '019a0c0d-e000-7000-8000-00000000c0de';

test('codex: items stream as partials (reasoning and commands as thinking lines), usage on result, prompt on stdin', async () => {
  const r = await runWrapper({ wrapper: 'codex', turn: turn('-n fix the tests') });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.events, [
    { type: 'partial', text: '**Looking at the tests**\n', role: 'thinking', session_id: TID },
    { type: 'partial', text: 'Running: npm test\n', role: 'thinking', session_id: TID },
    { type: 'partial', text: 'Reconnecting to the model (1/5): stream disconnected before completion: websocket closed by server before response.completed…\n', role: 'thinking', session_id: TID },
    { type: 'partial', text: 'The tests pass.', session_id: TID },
    { type: 'partial', text: 'Editing src/x.ts\n', role: 'thinking', session_id: TID },
    { type: 'partial', text: '\n\nUpdated src/x.ts.', session_id: TID },
    { type: 'result', text: 'Updated src/x.ts.', session_id: TID, usage: { input_tokens: 24763, output_tokens: 122, total_tokens: 24885, cache_read_input_tokens: 24448 } },
  ]);
  assert.deepEqual(argvOf(r.log), ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', '-c', 'tools.update_plan.enabled=true', '-']);
  assert.deepEqual(stdinOf(r.log), ['-n fix the tests']);
});

test('codex: "Reconnecting... waiting for network" is a thinking line too, not an error', async () => {
  const r = await runWrapper({ wrapper: 'codex', turn: turn('[network] hi') });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.events, [
    { type: 'partial', text: 'Reconnecting to the model: waiting for network…\n', role: 'thinking', session_id: TID },
    { type: 'partial', text: 'Back online.', session_id: TID },
    { type: 'result', text: 'Back online.', session_id: TID, usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7, cache_read_input_tokens: 0 } },
  ]);
});

test('codex: OPENAI_API_KEY reaches codex as CODEX_API_KEY (what codex exec reads); CODEX_API_KEY wins; CODEX_BASE_URL is a -c override', async () => {
  const mapped = await runWrapper({ wrapper: 'codex', turn: turn('hi'), env: { OPENAI_API_KEY: 'sk-openai', CODEX_BASE_URL: 'http://gateway.internal:4000/v1' } });
  assert.equal(mapped.code, 0, mapped.stderr);
  assert.equal(mapped.log[0]!.codexApiKey, 'sk-openai');
  assert.deepEqual(argvOf(mapped.log), ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', '-c', 'openai_base_url="http://gateway.internal:4000/v1"', '-c', 'tools.update_plan.enabled=true', '-']);
  const both = await runWrapper({ wrapper: 'codex', turn: turn('hi'), env: { OPENAI_API_KEY: 'sk-openai', CODEX_API_KEY: 'sk-codex' } });
  assert.equal(both.log[0]!.codexApiKey, 'sk-codex');
});

test('codex: resume, model and images: exec flags before `resume <id>`, prompt "-" last; inbound id stamped', async () => {
  const dir = makeTempDir();
  try {
    const png = join(dir, 'a.png');
    writeFileSync(png, 'png');
    const r = await runWrapper({
      wrapper: 'codex', dir,
      env: { CODEX_MODEL: 'gpt-5-codex', CODEX_SANDBOX: 'read-only' },
      turn: turn('look', { session_id: 'thread-77', attachments: [{ kind: 'image', url: pathToFileURL(png).href, mime_type: 'image/png' }, { kind: 'file', url: 'https://example.invalid/r.txt' }] }),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(argvOf(r.log), ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'read-only', '--model', 'gpt-5-codex', '-c', 'tools.update_plan.enabled=true', '--image', png, 'resume', '--', 'thread-77', '-']);
    assert.deepEqual(stdinOf(r.log), ['look\n\nAttached files:\n- https://example.invalid/r.txt']);
    for (const ev of r.events) assert.equal(ev.session_id, 'thread-77');
    assert.equal(r.events.at(-1)!.text, 'Updated src/x.ts after looking at 1 image(s).');
  } finally {
    removeDir(dir);
  }
});

test('codex: bypass flag replaces the sandbox; the git check can be kept; CODEX_PLAN_TOOL=0 leaves update_plan off', async () => {
  const r = await runWrapper({ wrapper: 'codex', turn: turn('hi'), env: { CODEX_BYPASS_SANDBOX: '1', CODEX_SKIP_GIT_CHECK: '0', CODEX_PLAN_TOOL: '0' } });
  assert.deepEqual(argvOf(r.log), ['exec', '--json', '--dangerously-bypass-approvals-and-sandbox', '-']);
  // The temp dir is no git repository: codex refuses, and that refusal is an error event.
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [{ type: 'error', message: 'codex exited with code 1 without finishing the turn: Not inside a trusted directory and --skip-git-repo-check was not specified.' }]);
});

test('codex: turn.failed (an error object) is an error event with the session id', async () => {
  const r = await runWrapper({ wrapper: 'codex', turn: turn('[fail] hi') });
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [{ type: 'error', message: 'unexpected status 401 Unauthorized: Missing bearer authentication in header', session_id: TID }]);
});

test('codex: a crash after a non-retry error reports that error, never a success', async () => {
  const r = await runWrapper({ wrapper: 'codex', turn: turn('[crash] hi') });
  assert.equal(r.code, 1);
  assert.deepEqual(r.events.at(-1), { type: 'error', message: 'codex exited with code 101 without finishing the turn: stream disconnected before completion: connection reset', session_id: TID });
});

test('codex: an unknown sandbox mode is refused before codex runs', async () => {
  const r = await runWrapper({ wrapper: 'codex', turn: turn('hi'), env: { CODEX_SANDBOX: 'yolo' } });
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [{ type: 'error', message: 'CODEX_SANDBOX=yolo is not a codex sandbox mode (expected read-only, workspace-write, danger-full-access)' }]);
  assert.deepEqual(r.log, []);
});

test('codex: missing CLI gives the install hint', async () => {
  const r = await runWithoutCli('codex');
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [{ type: 'error', message: 'codex not found: install with npm i -g @openai/codex' }]);
});

test('codex: SIGTERM is forwarded and ends in an error event, exit 143', async () => {
  const r = await runStoppedBy('codex', 'SIGTERM');
  assert.equal(r.code, 143);
  assert.deepEqual(r.events.at(-1), { type: 'error', message: 'codex was stopped (SIGTERM)', session_id: TID });
  assert.ok(r.log.some((f) => f.signal === 'SIGTERM'));
});
