import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPartialPrinter } from '../../../src/cli/partial-printer.js';
import type { CliIo } from '../../../src/cli/io.js';

function io(tty: boolean) {
  const out: string[] = [];
  const err: string[] = [];
  const value = {
    stdout: { isTTY: tty, write: (s: string) => { out.push(s); return true; } },
    stderr: { isTTY: false, write: (s: string) => { err.push(s); return true; } },
    env: { NO_COLOR: '1' },
  } as unknown as CliIo;
  return { value, out, err };
}

test('a role change starts a new line, so thinking never runs into the answer', () => {
  const t = io(true);
  const p = createPartialPrinter(t.value, { thinkingToStderr: false });
  p.partial({ text: 'Let me check the tests.', role: 'thinking' });
  p.partial({ text: 'Running ' });
  p.partial({ text: 'them now.' });
  p.partial({ text: 'hmm', role: 'thinking' });
  p.endLine();
  assert.equal(t.out.join(''), 'Let me check the tests.\nRunning them now.\nhmm\n');
});

test('thinking goes to stderr when asked; output stays on stdout', () => {
  const t = io(false);
  const p = createPartialPrinter(t.value, { thinkingToStderr: true });
  p.partial({ text: 'think', role: 'thinking' });
  p.partial({ text: 'answer' });
  assert.equal(t.out.join(''), 'answer');
  assert.equal(t.err.join(''), 'think');
});
