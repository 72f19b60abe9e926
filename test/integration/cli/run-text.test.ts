import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DEMO, ECHO, FIXTURES, demoEnv, runCli } from './cli-process.js';

test('echo without --json: the reply on stdout, nothing else', async () => {
  const r = await runCli(['run', ECHO, '--message', 'plain text']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'You said: plain text\n');
  assert.equal(r.stderr, '');
});

test('demo without --json: output partials on stdout, thinking and the session id on stderr (stdout not a terminal)', async () => {
  const { env, cleanup } = demoEnv();
  try {
    const r = await runCli(['run', DEMO, '--message', 'stream me'], { env });
    assert.equal(r.code, 0, r.stderr);
    const session = /session: (demo-[0-9a-f]{16})\n/.exec(r.stderr)?.[1];
    assert.ok(session, `session line on stderr: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^This is turn 1 of session ${session}\\.\\nYou said: stream me\\nPermission denied`));
    assert.ok(!r.stdout.includes('Reading your message'), 'thinking stays off stdout');
    assert.ok(r.stderr.includes('Reading your message'), 'thinking shown on stderr');
    assert.ok(!r.stdout.includes('\x1b['), 'no ANSI codes when stdout is not a terminal');
    assert.match(r.stderr, /Permission request 1: Bash \{"command":"date"\}/);
    assert.ok(r.stdout.endsWith('\n'));
    // The output partials already carried the body: it is not printed twice.
    assert.equal(r.stdout.split('You said: stream me').length, 2);
  } finally {
    cleanup();
  }
});

test('without --json the exit status is still the turn exit code; errors go to stderr', async () => {
  const timeout = await runCli(['run', join(FIXTURES, 'timeout.yaml'), '--message', 'wait']);
  assert.equal(timeout.code, 124);
  assert.equal(timeout.stdout, 'starting…\n');
  assert.match(timeout.stderr, /^error: .+/m);

  const exit = await runCli(['run', join(FIXTURES, 'exit-code.yaml'), '--message', 'x'], { env: { EXIT_CODE: '5' } });
  assert.equal(exit.code, 5);
  assert.equal(exit.stdout, 'partial before exit\n');
  assert.match(exit.stderr, /error: .*something broke in the agent/s);
});

test('a bad profile without --json: the error on stderr, exit 2', async () => {
  const r = await runCli(['run', join(FIXTURES, 'invalid.yaml'), '--message', 'x']);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^error: .*timeout_secs/);
});
