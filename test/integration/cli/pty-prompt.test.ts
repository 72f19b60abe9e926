/**
 * `turnbridge run` on a real terminal: the installed command (node bin/turnbridge.js) in a
 * pseudo-terminal made by util-linux `script`, the demo agent asking to run `date`, and a
 * person typing y or n once the question is shown. The y/n prompt loads readline with a dynamic
 * import, which the former start-up bundle could not do ("A dynamic import callback was not
 * specified": every prompt denied), so this runs the command exactly as a user does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { BIN, DEMO, ROOT, demoEnv } from './cli-process.js';

const HAVE_SCRIPT = spawnSync('script', ['--version']).status === 0;

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Runs `turnbridge run DEMO --message hi` on a pty; types `answer` once "Allow? [y/N]" shows. */
function runOnPty(answer: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const cmd = [process.execPath, BIN, 'run', DEMO, '--message', 'hi'].map(shellQuote).join(' ');
    // -e: script exits with the command's status; -f: flush output as it comes.
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env, TERM: 'dumb' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let typed = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (!typed && out.includes('Allow? [y/N]')) {
        typed = true;
        child.stdin.write(answer);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { out += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

test('turnbridge run on a terminal: typing y lets the demo agent run its tool', { skip: HAVE_SCRIPT ? false : 'util-linux script is not installed' }, async () => {
  const demo = demoEnv();
  try {
    const r = await runOnPty('y\r', demo.env);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /Permission request 1: Bash/);
    assert.match(r.out, /Permission granted: ran `date`/, r.out);
    assert.doesNotMatch(r.out, /permission handler failed|dynamic import/, r.out);
  } finally {
    demo.cleanup();
  }
});

test('turnbridge run on a terminal: typing n denies the tool', { skip: HAVE_SCRIPT ? false : 'util-linux script is not installed' }, async () => {
  const demo = demoEnv();
  try {
    const r = await runOnPty('n\r', demo.env);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /Permission denied \(denied on the terminal\)/, r.out);
  } finally {
    demo.cleanup();
  }
});
