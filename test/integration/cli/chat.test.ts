import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEMO, ECHO, demoEnv, runCli } from './cli-process.js';

test('chat with the demo: session kept between turns, permission answered y then n, /new resets, EOF ends', async () => {
  const { env, cleanup } = demoEnv();
  try {
    const input = ['hello', 'y', 'second', 'n', '/new', 'third', 'yes', ''].join('\n');
    const r = await runCli(['chat', DEMO], { env, input });
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout;
    assert.ok(!out.includes('\x1b['), 'no ANSI codes when stdout is not a terminal');

    const first = /This is turn 1 of session (demo-[0-9a-f]{16})/.exec(out)?.[1];
    assert.ok(first, out);
    assert.match(out, new RegExp(`This is turn 2 of session ${first}`), 'the second turn resumed the session');
    const third = [...out.matchAll(/This is turn 1 of session (demo-[0-9a-f]{16})/g)].map((m) => m[1]);
    assert.equal(third.length, 2, 'after /new the agent starts at turn 1 again');
    assert.notEqual(third[1], first, 'with a new session id');
    assert.match(out, /\(new session\)/);

    assert.equal(out.match(/Allow\? \[y\/N\]/g)?.length, 3, 'asked once per turn');
    const decisions = [...out.matchAll(/Permission (granted|denied)/g)].map((m) => m[1]);
    assert.deepEqual(decisions, ['granted', 'denied', 'granted']);
    assert.match(out, /ran `date` → /);
    assert.match(out, /Reading your message/, 'thinking partials are shown');
    assert.match(out, new RegExp(`bye \\(session ${third[1]}\\)`));
  } finally {
    cleanup();
  }
});

test('chat: --session continues a known session; /exit leaves before the remaining lines', async () => {
  const { env, cleanup } = demoEnv();
  try {
    const first = await runCli(['chat', DEMO], { env, input: 'one\nn\n' });
    const session = /This is turn 1 of session (demo-[0-9a-f]{16})/.exec(first.stdout)?.[1];
    assert.ok(session, first.stdout);
    const r = await runCli(['chat', DEMO, '--session', session], { env, input: 'two\nn\n/exit\nnever sent\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`This is turn 2 of session ${session}`));
    assert.ok(!r.stdout.includes('never sent'));
  } finally {
    cleanup();
  }
});

test('chat with a stateless agent: one reply per line, blank lines send nothing, no session line', async () => {
  const r = await runCli(['chat', ECHO], { input: 'first\n\n   \nsecond\n' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /You said: first\n[\s\S]*You said: second\n/);
  assert.equal(r.stdout.match(/You said:/g)?.length, 2, 'blank lines send nothing');
  assert.ok(!r.stdout.includes('[session'), 'no session line when the agent has none');
});

test('chat: a failing turn shows the error and the next turn still runs', async () => {
  const { env, cleanup } = demoEnv();
  try {
    const r = await runCli(['chat', DEMO, '--no-stream'], { env, input: 'please fail\nafter\nn\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /error: Demo failure/);
    assert.match(r.stdout, /This is turn 2 of session demo-/, 'the session from the failed turn was kept');
  } finally {
    cleanup();
  }
});
