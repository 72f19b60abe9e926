// `turnbridge allow` as a person runs it (the real CLI process): the grant is in the bridge state
// when it says so, grants of an older version move in first, and an unusable data dir is reported.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Keyv from 'keyv';
import { KeyvFile } from 'keyv-file';
import { accessGrantsOn } from '../../../src/bridge/access-grants.js';
import { storeChecks } from '../../../src/doctor/store-checks.js';
import { silentLogger } from '../../../src/log.js';
import { createState } from '../../../src/state/index.js';
import { makeConfig } from '../bridge/helpers.js';
import { runCli } from './cli-process.js';

test('turnbridge allow writes to the bridge state (moving older grants in first); doctor says what the next start moves', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tb-allow-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const old = new Keyv({ store: new KeyvFile({ filename: join(dataDir, 'access'), separatedFile: true, writeDelay: 0 }), namespace: 'access' });
  await old.set('slack:U0OLD', { by: 'cli', at: 1 });
  await old.disconnect();
  const doctor = await storeChecks(makeConfig({ dataDir }));
  assert.ok(doctor.some((c) => c.status === 'pass' && /access grants of an older version in .*access move into the bridge state on the next start/.test(c.text)), JSON.stringify(doctor));

  const env = { TURNBRIDGE_DATA_DIR: dataDir, TURNBRIDGE_CONFIG: '' };
  const added = await runCli(['allow', 'slack:U0NEW', 'discord:80351110224678912'], { env });
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /slack:U0NEW can use the bridge now/);
  assert.equal(existsSync(join(dataDir, 'access')), false, 'the CLI moved the old grants in');
  assert.ok(!(await storeChecks(makeConfig({ dataDir }))).some((c) => /access grants of an older version/.test(c.text)), 'nothing left to move');

  const state = createState({ dataDir }, silentLogger);
  const grants = accessGrantsOn(state, { dataDir }, silentLogger);
  for (const id of ['slack:U0OLD', 'slack:U0NEW', 'discord:80351110224678912']) assert.equal(await grants.hasAny([id]), true, id);
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
