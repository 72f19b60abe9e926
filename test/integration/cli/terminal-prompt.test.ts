/**
 * `turnbridge run` asking on the terminal: the agent's permission request is shown on stderr
 * and the y/N answer typed on stdin reaches the agent (readline loads only for this prompt).
 * In-process runCommand with a terminal-like stdin, the real ask agent as a child process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { runCommand } from '../../../src/cli/run.js';
import { ROOT } from './cli-process.js';
import { terminalIo } from './terminal-io.js';

/** `answer` is typed once asked; null: the input ends instead (Ctrl-D). */
async function askWith(answer: string | null): Promise<{ code: number; out: string; err: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tb-prompt-'));
  try {
    const profile = join(dir, 'profile.yaml');
    writeFileSync(profile, `command: ${process.execPath}\nargs: [${JSON.stringify(join(ROOT, 'test/fixtures/bridge-agents/ask.mjs'))}]\npermission: true\n`);
    const t = terminalIo();
    // The answer is typed once the question is on the terminal.
    const typed = new Promise<void>((resolve) => {
      (t.io.stderr as PassThrough).on('data', () => {
        if (t.err().includes('Allow? [y/N] ')) {
          if (answer === null) t.stdin.end();
          else t.stdin.write(answer);
          resolve();
        }
      });
    });
    const code = await runCommand([profile, '--message', 'ls -l'], t.io);
    await typed;
    return { code, out: t.out(), err: t.err() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('run on a terminal: "y" allows the tool and the agent goes on', async () => {
  const r = await askWith('y\n');
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /Bash/);
  assert.equal(r.out, 'ran it\n');
});

test('run on a terminal: anything but yes denies', async () => {
  const r = await askWith('nope\n');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'not allowed: denied on the terminal\n');
});

test('run on a terminal: the input ending (Ctrl-D) denies instead of waiting for ever', async () => {
  const r = await askWith(null);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'not allowed: no answer (input ended)\n');
});
