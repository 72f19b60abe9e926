import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './wrapper-harness.js';

// Each profile directory carries its own wire.mjs so it can be copied alone; the copies must not drift.
test('profiles/*/wire.mjs copies are identical', () => {
  const read = (p: string) => readFileSync(join(ROOT, 'profiles', p, 'wire.mjs'), 'utf8');
  const claude = read('claude-code');
  assert.equal(read('codex'), claude, 'profiles/codex/wire.mjs differs from profiles/claude-code/wire.mjs');
  assert.equal(read('gemini-cli'), claude, 'profiles/gemini-cli/wire.mjs differs from profiles/claude-code/wire.mjs');
});
