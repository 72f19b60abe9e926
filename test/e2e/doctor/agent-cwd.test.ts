/**
 * The doctor checks the directory agents really run in: the agent workspace (not the doctor's
 * own cwd) when the profile names no `cwd:`, and a profile `cwd:` that holds the bridge's
 * directory is ✗ with the TB_CWD_UNSAFE text a turn would fail with (it got ✓ before, then
 * failed every turn).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, makeDoctorRig, runDoctorCommand, type DoctorRig } from './doctor-rig.js';

describe('doctor: the agent cwd', () => {
  let rig: DoctorRig;
  before(async () => { rig = await makeDoctorRig(); });
  after(async () => { await rig.close(); });

  it('is the agent workspace, not the process cwd', async () => {
    const ws = join(rig.dir, 'ws');
    mkdirSync(ws);
    const run = await runDoctorCommand({ ...rig.env, TURNBRIDGE_WORKSPACE: ws });
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, new RegExp(`✓ profiles/claude-code/profile\\.yaml: agent workspace ${ws} is writable`));
    assert.ok(!run.stdout.includes(`${ROOT} is writable`), run.stdout);
  });

  it('a workspace not created yet passes, saying the bridge creates it', async () => {
    const ws = join(rig.dir, 'later', 'ws');
    const run = await runDoctorCommand({ ...rig.env, TURNBRIDGE_WORKSPACE: ws });
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, new RegExp(`agent workspace ${ws} does not exist yet; the bridge creates it at start \\(${rig.dir} is writable\\)`));
  });

  it('a profile cwd holding the bridge\'s directory is ✗, as the turn would fail (TB_CWD_UNSAFE)', async () => {
    const profile = join(rig.dir, 'here.yaml');
    writeFileSync(profile, `command: node\ncwd: ${ROOT}\n`);
    const run = await runDoctorCommand({ ...rig.env, TURNBRIDGE_PROFILE: profile });
    assert.equal(run.code, 1, run.stdout);
    assert.equal(run.failures.length, 1, run.stdout);
    const [text, fix] = run.failures[0]!.split('\n');
    assert.equal(text, `✗ ${profile}: the agent's working directory ${ROOT} holds ${ROOT}, which agents must not see (named by TURNBRIDGE_PROFILE / default_profile)`);
    assert.match(fix!, /^fix: unset cwd in the profile to use the agent workspace/);
  });
});
