import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { BIN, DEMO, ROOT, demoEnv } from './cli-process.js';

/** Start the CLI, wait until stdout shows `marker`, send SIGINT, collect the rest. */
function interruptAfter(args: string[], marker: string, env: Record<string, string>, input?: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (!sent && stdout.includes(marker)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {});
    if (input === undefined) child.stdin.end();
    else child.stdin.end(input);
  });
}

test('run: Ctrl-C cancels the turn, keeps what was streamed, exit status 130', async () => {
  const { env, cleanup } = demoEnv();
  try {
    const r = await interruptAfter(['run', DEMO, '--message', 'a long one'], 'tick 1/60', { ...env, DEMO_LONG_MS: '20000' });
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stdout, /^This is turn 1 of session demo-[0-9a-f]{16}\.\ntick 1\/60\n/);
    assert.ok(!r.stdout.includes('tick 60/60'));
    assert.match(r.stderr, /cancelled/);
    assert.match(r.stderr, /session: demo-/);
  } finally {
    cleanup();
  }
});

test('chat: Ctrl-C cancels the running turn and the conversation goes on', async () => {
  const { env, cleanup } = demoEnv();
  try {
    const r = await interruptAfter(['chat', DEMO], 'tick 1/60', { ...env, DEMO_LONG_MS: '20000' }, 'make it long\nafter\nn\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\(cancelling the turn\)/);
    assert.match(r.stdout, /\(cancelled\)/);
    assert.ok(!r.stdout.includes('tick 60/60'), 'the long turn did not run to its end');
    assert.match(r.stdout, /This is turn 2 of session demo-[0-9a-f]{16}\.\nYou said: after/, 'the next turn resumed the session');
  } finally {
    cleanup();
  }
});
