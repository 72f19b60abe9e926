/**
 * A profile's `sandbox.read` files reach the agent wherever it runs (issue 21): an agent (a real
 * process) with its conversation's private HOME finds the operator's `~/.claude/.credentials.json`
 * there when the box cannot start (auto falls back to unsandboxed), as the bridge's user and as
 * a run_as user who cannot read the operator's HOME; its copy is read-only and writing it leaves
 * the operator's file as it was. From the attacker's side: a link the agent plants in its HOME
 * does not lead the bridge to write where the agent's user may not.
 */
import { strict as assert } from 'node:assert';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { run, sandboxProblem, type LaunchPolicy } from '../../../src/runner/index.js';
import { silentLogger } from '../../../src/log.js';
import type { Profile } from '../../../src/profile/index.js';

// Not under /tmp: the run_as user must pass through these directories (/tmp may be 0755 here).
const root = mkdtempSync(join('/var/tmp', 'tb-declared-'));
chmodSync(root, 0o755);
after(() => rmSync(root, { recursive: true, force: true }));

const operator = join(root, 'operator');
mkdirSync(join(operator, '.claude'), { recursive: true });
writeFileSync(join(operator, '.claude', '.credentials.json'), '{"operator":"login"}\n', { mode: 0o600 });
chmodSync(operator, 0o700);
// The bridge resolves `~/` in sandbox.read against its own HOME: the operator's.
process.env.HOME = operator;

// A bwrap that fails as it does under Docker's default seccomp profile: auto runs unsandboxed.
const noBox = join(root, 'bwrap-in-docker');
writeFileSync(noBox, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', { mode: 0o755 });

/** Reads its HOME's copy, tries to overwrite it, and reports; with PLANT set, swaps ~/.claude for a link to PLANT. */
const AGENT = `process.stdin.once('data', () => {
  const fs = require('fs'); const f = process.env.HOME + '/.claude/.credentials.json'; const out = { uid: process.getuid() };
  try { out.text = fs.readFileSync(f, 'utf8'); out.mode = (fs.statSync(f).mode & 0o777).toString(8); } catch (e) { out.error = e.code; }
  try { fs.writeFileSync(f, 'changed by the agent'); out.wrote = true; } catch (e) { out.wrote = e.code; }
  if (process.env.PLANT) { fs.rmSync(process.env.HOME + '/.claude', { recursive: true, force: true }); fs.symlinkSync(process.env.PLANT, process.env.HOME + '/.claude'); }
  console.log(JSON.stringify({ type: 'result', text: JSON.stringify(out) }));
});`;

function profile(env: Record<string, string> = {}): Profile {
  return {
    dir: '', command: process.execPath, args: ['-e', AGENT], env, timeoutSecs: 30, killGraceSecs: 1, streaming: true, permission: false,
    sandbox: { read: ['~/.claude/.credentials.json'], allowHosts: [] },
  };
}

/** A conversation's private places, owned by `who`. */
function conversation(name: string, who: { uid: number; gid: number }): { workspace: string; home: string } {
  const workspace = join(root, 'ws', name);
  const home = join(root, 'homes', name);
  for (const d of [workspace, home]) {
    mkdirSync(d, { recursive: true, mode: 0o700 });
    chownSync(d, who.uid, who.gid);
  }
  chmodSync(join(root, 'ws'), 0o755);
  chmodSync(join(root, 'homes'), 0o755);
  return { workspace, home };
}

async function turn(dirs: { workspace: string; home: string }, launch: LaunchPolicy, env: Record<string, string> = {}) {
  const r = await run(profile(env), { message: 'read your login' }, {}, { launch: { defaultCwd: dirs.workspace, protectedPaths: [], ...launch }, dirs, logger: silentLogger, env: { PATH: process.env.PATH } });
  return { r, report: r.error ? undefined : JSON.parse(r.reply) as { uid: number; text?: string; mode?: string; error?: string; wrote: true | string } };
}

const me = { uid: process.getuid!(), gid: process.getgid!() };
const asRoot = process.getuid?.() === 0 ? false : 'run_as needs the test to run as root';
const nobody = { uid: 65534, gid: 65534 };

describe('sandbox.read where the box cannot start (auto, unsandboxed)', () => {
  it('the agent finds the operator\'s file in its private HOME, read-only; its write leaves the operator\'s file as it was', async () => {
    const dirs = conversation('same-user', me);
    const { r, report } = await turn(dirs, { sandbox: 'auto', bwrapPath: noBox });
    assert.equal(r.error, null, r.error ?? '');
    assert.equal(report!.text, '{"operator":"login"}\n');
    assert.equal(report!.mode, '400');
    if (me.uid !== 0) assert.equal(report!.wrote, 'EACCES');
    assert.equal(readFileSync(join(operator, '.claude', '.credentials.json'), 'utf8'), '{"operator":"login"}\n', 'the operator\'s file is untouched');
    // The next turn gets the operator's file again, whatever the agent did to its copy.
    const again = await turn(dirs, { sandbox: 'auto', bwrapPath: noBox });
    assert.equal(again.report!.text, '{"operator":"login"}\n');
  });

  it('with run_as, a user who cannot read the operator\'s HOME gets its own read-only copy', { skip: asRoot }, async () => {
    const dirs = conversation('run-as', nobody);
    const { r, report } = await turn(dirs, { sandbox: 'auto', bwrapPath: noBox, runAs: nobody });
    assert.equal(r.error, null, r.error ?? '');
    assert.deepEqual([report!.uid, report!.text, report!.mode, report!.wrote], [65534, '{"operator":"login"}\n', '400', 'EACCES']);
    assert.equal(statSync(join(dirs.home, '.claude', '.credentials.json')).uid, 65534);
    assert.equal(readFileSync(join(operator, '.claude', '.credentials.json'), 'utf8'), '{"operator":"login"}\n');
  });

  it('a link the agent plants in its HOME does not lead the bridge to write outside what the agent\'s user may write', { skip: asRoot }, async () => {
    const dirs = conversation('planter', nobody);
    // Somewhere of the bridge's (root's), which the agent's user can see but not write.
    const bridgeOwned = join(root, 'bridge-owned');
    mkdirSync(bridgeOwned, { mode: 0o755 });
    const first = await turn(dirs, { sandbox: 'auto', bwrapPath: noBox, runAs: nobody }, { PLANT: bridgeOwned });
    assert.equal(first.r.error, null, first.r.error ?? '');
    assert.equal(lstatSync(join(dirs.home, '.claude')).isSymbolicLink(), true, 'the agent planted its link');
    const second = await turn(dirs, { sandbox: 'auto', bwrapPath: noBox, runAs: nobody });
    assert.match(second.r.error ?? '', /declared files \(sandbox\.read\) could not be put in its HOME .*Permission denied/);
    assert.deepEqual(readdirSync(bridgeOwned), [], 'nothing was written in the bridge\'s directory');
  });
});

describe('sandbox.read in the box', { skip: sandboxProblem() ?? false }, () => {
  it('run_as: the operator\'s file the agent\'s user cannot read comes as a read-only copy; as the bridge\'s user it is bound', async () => {
    if (me.uid === 0) {
      const dirs = conversation('boxed-run-as', nobody);
      const { r, report } = await turn(dirs, { sandbox: 'bwrap', runAs: nobody });
      assert.equal(r.error, null, r.error ?? '');
      assert.deepEqual([report!.uid, report!.text, report!.mode], [65534, '{"operator":"login"}\n', '400']);
    }
    const dirs = conversation('boxed-same-user', me);
    const { r, report } = await turn(dirs, { sandbox: 'bwrap' });
    assert.equal(r.error, null, r.error ?? '');
    assert.equal(report!.text, '{"operator":"login"}\n');
    assert.equal(report!.mode, '600', 'the operator\'s own file, bound read-only');
    assert.equal(report!.wrote, 'EROFS');
  });
});

