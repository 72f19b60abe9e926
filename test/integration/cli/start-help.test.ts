/** `turnbridge start --help` names every option start accepts, as docs/operations.md does. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli } from './cli-process.js';

test('start --help lists --config, --host, --port and --local, the options docs/operations.md names', async () => {
  const r = await runCli(['start', '--help']);
  assert.equal(r.code, 0, r.stderr);
  const ops = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const documented = [...new Set([...ops.matchAll(/turnbridge start \[([^\n`]+)/g)].flatMap((m) => [...m[1]!.matchAll(/--[a-z]+/g)].map((o) => o[0])))];
  assert.deepEqual(documented.sort(), ['--config', '--host', '--local', '--port']);
  for (const o of documented) assert.match(r.stdout, new RegExp(`^ +(-\\w, )?${o}\\b`, 'm'), `${o} is explained`);
  // And start really takes them: an unknown one is a usage error naming them all.
  const bad = await runCli(['start', '--bogus']);
  assert.equal(bad.code, 2);
  for (const o of documented) assert.ok(bad.stderr.includes(o), bad.stderr);
});
