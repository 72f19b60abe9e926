import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ErrorCodes, TurnbridgeError, isTurnbridgeError, RateLimitedError } from '../../../src/errors.js';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/errors.md', import.meta.url)), 'utf8');

test('every error code is documented in docs/errors.md, and nothing else is', () => {
  const documented = [...doc.matchAll(/^\| `(TB_[A-Z_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...documented].sort(), Object.keys(ErrorCodes).sort());
});

test('errors carry their code and details; rate limits carry retryAfterMs', () => {
  const e = new TurnbridgeError('TB_CONFIG_INVALID', 'x', { file: 'f', field: 'a', expected: 'b' });
  assert.ok(isTurnbridgeError(e, 'TB_CONFIG_INVALID'));
  assert.equal(e.field, 'a');
  const r = new RateLimitedError('slow down', 1500);
  assert.ok(isTurnbridgeError(r, 'TB_RATE_LIMITED'));
  assert.equal(r.retryAfterMs, 1500);
  assert.equal(isTurnbridgeError(new Error('plain')), false);
});
