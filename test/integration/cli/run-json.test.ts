import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO, ECHO, FIXTURES, ROOT, demoEnv, parseJsonLine, runCli } from './cli-process.js';

test('echo --json prints exactly the contract object and exits 0', async () => {
  const r = await runCli(['run', ECHO, '--message', 'hi', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '{"reply":"You said: hi","session_id":"","error":null,"exit_code":0,"partials":[],"notices":[]}\n');
});

test('a hub-layout profile (agentproc: key) runs unchanged', async () => {
  const r = await runCli(['run', join(FIXTURES, 'hub-echo.yaml'), '-m', 'from the hub', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(parseJsonLine(r.stdout).reply, 'You said: from the hub');
});

test('demo --json: partials with roles, a session id that the next turn resumes, permission denied without a terminal', async () => {
  const { env, cleanup } = demoEnv();
  try {
    const first = await runCli(['run', DEMO, '--message', 'hello', '--json'], { env });
    assert.equal(first.code, 0, first.stderr);
    const one = parseJsonLine(first.stdout);
    assert.deepEqual(Object.keys(one), ['reply', 'session_id', 'error', 'exit_code', 'partials', 'notices', 'usage']);
    // docs/profiles.md shows the same object (its example once lacked `notices`)
    const documented = /```json\n(\{"reply".*\})\n```/.exec(readFileSync(join(ROOT, 'docs/profiles.md'), 'utf8'))?.[1];
    assert.ok(documented, 'docs/profiles.md shows a run --json example');
    assert.deepEqual(Object.keys(JSON.parse(documented) as object), Object.keys(one));
    assert.equal(one.error, null);
    assert.equal(one.exit_code, 0);
    assert.match(String(one.session_id), /^demo-[0-9a-f]{16}$/);
    const partials = one.partials as Array<{ text: string; role?: string }>;
    assert.ok(partials.some((p) => p.role === 'thinking'), 'some partials are thinking');
    assert.ok(partials.some((p) => p.role === undefined), 'some partials are output (no role key)');
    for (const p of partials) assert.deepEqual(Object.keys(p).sort(), p.role === undefined ? ['text'] : ['role', 'text']);
    const shown = String(one.reply);
    // reply is the whole text a person sees: the output partials, then the final body.
    assert.ok(shown.startsWith(partials.filter((p) => p.role !== 'thinking').map((p) => p.text).join('')), shown);
    assert.ok(partials.some((p) => p.role === undefined && p.text.length > 0 && shown.includes(p.text)));
    assert.match(shown, new RegExp(`This is turn 1 of session ${String(one.session_id)}`));
    assert.match(shown, /You said: hello/);
    assert.match(shown, /Permission denied/);
    assert.equal(typeof (one.usage as { output_tokens?: unknown }).output_tokens, 'number');

    const second = await runCli(['run', DEMO, '--message', 'again', '--session', String(one.session_id), '--json'], { env });
    assert.equal(second.code, 0, second.stderr);
    const two = parseJsonLine(second.stdout);
    assert.equal(two.session_id, one.session_id);
    const text = (two.partials as Array<{ text: string }>).map((p) => p.text).join('');
    assert.match(text, new RegExp(`This is turn 2 of session ${String(one.session_id)}`));
  } finally {
    cleanup();
  }
});

test('--no-stream: no partials, the whole body arrives as reply', async () => {
  const { env, cleanup } = demoEnv();
  try {
    const r = await runCli(['run', DEMO, '-m', 'quiet please', '--no-stream', '--json'], { env });
    assert.equal(r.code, 0, r.stderr);
    const out = parseJsonLine(r.stdout);
    assert.deepEqual(out.partials, []);
    assert.match(String(out.reply), /^This is turn 1 of session demo-[0-9a-f]{16}\.\nYou said: quiet please\n/);
  } finally {
    cleanup();
  }
});

test('the turn object carries message, session, session name and --attach kinds by extension', async () => {
  const r = await runCli([
    'run', join(FIXTURES, 'turn-echo.yaml'), '--message', 'look', '--session', 'abc:1', '--session-name', 'thread one',
    '--attach', 'https://example.test/pics/cat.PNG?size=large', '--attach', 'https://example.test/docs/report.pdf', '--json',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const out = parseJsonLine(r.stdout);
  assert.deepEqual(out.usage, { input_tokens: 7, output_tokens: 3 });
  const turn = JSON.parse(String(out.reply)) as Record<string, unknown>;
  assert.equal(turn.type, 'turn');
  assert.equal(turn.message, 'look');
  assert.equal(turn.session_id, 'abc:1');
  assert.equal(turn.session_name, 'thread one');
  assert.equal(turn.protocol_version, '0.4');
  assert.deepEqual(turn.attachments, [
    { kind: 'image', url: 'https://example.test/pics/cat.PNG?size=large' },
    { kind: 'file', url: 'https://example.test/docs/report.pdf' },
  ]);
});

test('an attachment alone is a valid turn (empty message)', async () => {
  const r = await runCli(['run', join(FIXTURES, 'turn-echo.yaml'), '--attach', '/tmp/photo.jpeg', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const turn = JSON.parse(String(parseJsonLine(r.stdout).reply)) as Record<string, unknown>;
  assert.equal(turn.message, '');
  assert.deepEqual(turn.attachments, [{ kind: 'image', url: '/tmp/photo.jpeg' }]);
});

test('timeout: exit status 124, the partial already delivered is kept, a readable error', async () => {
  const r = await runCli(['run', join(FIXTURES, 'timeout.yaml'), '--message', 'wait', '--json']);
  assert.equal(r.code, 124, r.stderr);
  const out = parseJsonLine(r.stdout);
  assert.equal(out.exit_code, 124);
  assert.deepEqual(out.partials, [{ text: 'starting…' }]);
  assert.equal(typeof out.error, 'string');
  assert.ok(String(out.error).length > 0);
});

test("the agent's own exit code passes through as the CLI's exit status", async () => {
  for (const code of ['3', '42']) {
    const r = await runCli(['run', join(FIXTURES, 'exit-code.yaml'), '--message', 'x', '--json'], { env: { EXIT_CODE: code } });
    assert.equal(r.code, Number(code), r.stderr);
    const out = parseJsonLine(r.stdout);
    assert.equal(out.exit_code, Number(code));
    assert.match(String(out.error), /something broke in the agent/, 'the error carries the stderr tail');
    assert.deepEqual(out.partials, [{ text: 'partial before exit' }]);
  }
});

test('an error event (demo "fail") gives exit code 1 and the agent\'s message', async () => {
  const { env, cleanup } = demoEnv();
  try {
    const r = await runCli(['run', DEMO, '--message', 'please fail', '--json'], { env });
    assert.equal(r.code, 1, r.stderr);
    const out = parseJsonLine(r.stdout);
    assert.equal(out.exit_code, 1);
    assert.equal(out.error, 'Demo failure: the message contained "fail".');
    assert.match(String(out.session_id), /^demo-/, 'the session id survives a failed turn');
  } finally {
    cleanup();
  }
});

test('demo "big" brings a ~12,000-character markdown body with a code block', async () => {
  const { env, cleanup } = demoEnv();
  try {
    const r = await runCli(['run', DEMO, '--message', 'something big', '--no-stream', '--json'], { env });
    assert.equal(r.code, 0, r.stderr);
    const reply = String(parseJsonLine(r.stdout).reply);
    assert.ok(reply.length > 11_000 && reply.length < 14_000, `length ${reply.length}`);
    assert.match(reply, /```js\n[\s\S]*?\n```\n/);
  } finally {
    cleanup();
  }
});

test('a profile that cannot be loaded: one JSON object naming the problem, exit 2', async () => {
  const invalid = await runCli(['run', join(FIXTURES, 'invalid.yaml'), '--message', 'x', '--json']);
  assert.equal(invalid.code, 2);
  const out = parseJsonLine(invalid.stdout);
  assert.equal(out.exit_code, 2);
  assert.match(String(out.error), /timeout_secs/);

  const missing = await runCli(['run', join(FIXTURES, 'no-such-profile.yaml'), '--message', 'x', '--json']);
  assert.equal(missing.code, 2);
  assert.match(String(parseJsonLine(missing.stdout).error), /no-such-profile\.yaml/);
});
