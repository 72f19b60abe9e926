/**
 * `turnbridge doctor` flags the bridge's files when other users could read them (a data dir and
 * state file of an older version, 0755 / 0644), with the chmod that fixes it; once the store has
 * opened them (what the bridge does at start) the line is a ✓.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { createSqliteStore } from '../../../src/state/index.js';
import { makeDoctorRig, runDoctorCommand, type DoctorRig } from './doctor-rig.js';

let rig: DoctorRig;
before(async () => { rig = await makeDoctorRig(); });
after(async () => { await rig.close(); });

it('a readable data dir and state file are one ! line naming each, with the chmod; after the store opens them, a ✓', async () => {
  const data = rig.env.TURNBRIDGE_DATA_DIR!;
  const file = join(data, 'turnbridge.sqlite');
  const store = createSqliteStore({ file });
  await store.set('ns', 'k', 'v');
  await store.close();
  chmodSync(data, 0o755);
  chmodSync(file, 0o644);
  const env = { ...rig.env, TURNBRIDGE_SANDBOX: 'off' };
  const before = await runDoctorCommand(env);
  assert.equal(before.code, 0, before.stdout);
  const lines = before.warnings.filter((w) => /readable by other users/.test(w));
  assert.deepEqual(lines, [
    `! readable by other users (the agents' user among them): ${data} is 0755; ${file} is 0644\n`
    + `fix: chmod 700 ${data}; chmod 600 ${file} (the bridge also tightens what it owns when it starts)`,
  ]);
  await createSqliteStore({ file }).close();
  const afterOpen = await runDoctorCommand(env);
  assert.deepEqual(afterOpen.warnings.filter((w) => /readable by other users/.test(w)), []);
  assert.match(afterOpen.stdout, /✓ the data dir, the state file and the agent workspace root are closed to other users \(0700 directories, 0600 files\)$/m);
});
