// `turnbridge allow` as a person runs it (the real CLI process): the grant is in the bridge state
// when it says so, and an unusable data dir is reported.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {createState } from '../../../src/state/index.js';
import { silentLogger } from '../../../src/log.js';
import { runCli } from './cli-process.js';

test('turnbridge allow writes to the bridge state', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tb-allow-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));

  const env = { TURNBRIDGE_DATA_DIR: dataDir, TURNBRIDGE_CONFIG: '' };
  const added = await runCli(['allow', 'slack:U0NEW', 'discord:80351110224678912'], { env });
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /slack:U0NEW can use the bridge now/);

  const state = createState({ dataDir }, silentLogger);
  const grants = state.grants;
  for (const id of ['slack:U0NEW', 'discord:80351110224678912']) assert.equal(await grants.hasAny([id]), true, id);
  const removed = await runCli(['allow', '--remove', 'slack:U0NEW'], { env });
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /slack:U0NEW: grant removed/);
  assert.equal(await grants.hasAny(['slack:U0NEW']), false, 'the running side sees it gone, no restart');
  await state.close();
});

test('turnbridge allow on a data dir it cannot use exits 1 and says what to check', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tb-allow-bad-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'not-a-dir');
  writeFileSync(file, 'x');
  const r = await runCli(['allow', 'slack:U0NEW'], { env: { TURNBRIDGE_DATA_DIR: file, TURNBRIDGE_CONFIG: '' } });
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`slack:U0NEW: the grant could not be saved \\(is ${file} writable\\?\\)`));
});
