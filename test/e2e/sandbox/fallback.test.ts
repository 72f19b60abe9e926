/**
 * Where the box cannot start (here: a bwrap that fails as it does in a container under Docker's
 * default seccomp profile, first on PATH), the default `auto` runs agents unsandboxed and says so
 * everywhere an operator looks: the start-up warning with what to change, /readyz's `sandbox`,
 * and `turnbridge run`'s warning; `TURNBRIDGE_SANDBOX=bwrap` refuses to start. Real processes.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/turnbridge.js');
const ENV_DUMP = join(ROOT, 'test/fixtures/agents/env-dump.mjs');
const dir = mkdtempSync(join(tmpdir(), 'tb-box-fallback-'));
const bin = join(dir, 'bin');
mkdirSync(bin);
mkdirSync(join(dir, 'ws'));
writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n', { mode: 0o755 });
symlinkSync(process.execPath, join(bin, 'node'));
writeFileSync(join(dir, 'profile.yaml'), `command: node\nargs: [${JSON.stringify(ENV_DUMP)}]\ncwd: ${JSON.stringify(join(dir, 'ws'))}\n`);
const PROBLEM = `bwrap cannot make the agent box here: bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.`;
after(() => rmSync(dir, { recursive: true, force: true }));

const env = (extra: Record<string, string> = {}) => ({ PATH: `${bin}:/usr/bin:/bin`, HOME: dir, TURNBRIDGE_DATA_DIR: join(dir, 'data'), TURNBRIDGE_WORKSPACE: join(dir, 'ws'), PORT: '0', ...extra });

function cli(args: string[], e: Record<string, string>, until?: RegExp, cwd = dir): Promise<{ code: number | null; out: string; err: string; kill: () => void }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const kill = () => child.kill('SIGTERM');
    child.stdout.on('data', (d) => { out += d; if (until?.test(out)) resolveRun({ code: null, out, err, kill }); });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => resolveRun({ code, out, err, kill }));
  });
}

describe('the box cannot start here', () => {
  it('auto: turnbridge start warns with the fix and /readyz says unsandboxed and why', async () => {
    const started = await cli(['start'], env(), /local chat at (\S+)/);
    try {
      assert.equal(started.code, null, `turnbridge start exited: ${started.err}`);
      // Not a terminal: the warning is one JSON line (at WARN), not also a printed line.
      const said = started.out.split('\n').filter((l) => l.includes('the sandbox cannot start here'));
      assert.equal(said.length, 1, started.out);
      const line = JSON.parse(said[0]!) as { level: number; msg: string; sandbox: string };
      assert.deepEqual([line.level, line.sandbox], [40, 'off']);
      const warning = line.msg;
      assert.ok(warning.includes(`(${PROBLEM}), so agents run unsandboxed (TURNBRIDGE_SANDBOX=auto, the default)`), warning);
      assert.match(warning, /To fix: let bubblewrap make user namespaces: .*kernel\.unprivileged_userns_clone=1.*seccomp=unconfined/);
      const url = /local chat at (http:\/\/[^/\s?]+\/)/.exec(started.out)![1]!;
      const body = await (await fetch(`${url}readyz`)).json() as { sandbox: unknown };
      assert.deepEqual(body.sandbox, { requested: 'auto', inForce: 'off', problem: PROBLEM });
    } finally {
      started.kill();
    }
  });

  it('bwrap (required): turnbridge start refuses, naming the field and the fix', async () => {
    const r = await cli(['start'], env({ TURNBRIDGE_SANDBOX: 'bwrap' }));
    assert.notEqual(r.code, 0);
    assert.match(r.err + r.out, /TURNBRIDGE_SANDBOX=bwrap, but the sandbox cannot run here: .*No permissions to create new namespace/);
    assert.match(r.err + r.out, /let bubblewrap make user namespaces/);
  });

  it('auto: turnbridge run warns once and runs the agent unsandboxed; bwrap refuses run and chat', async () => {
    const r = await cli(['run', join(dir, 'profile.yaml'), '--message', 'hi', '--json'], env());
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, `warning: the sandbox cannot start here (${PROBLEM}): the agent runs unsandboxed. To fix: let bubblewrap make user namespaces: on the host \`sysctl -w kernel.unprivileged_userns_clone=1\` (Debian) or \`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\` (Ubuntu 24.04); in Docker run with \`--security-opt seccomp=unconfined --security-opt apparmor=unconfined\` (or a seccomp profile that allows clone/unshare of namespaces); or set TURNBRIDGE_SANDBOX=off to run agents unsandboxed on purpose (docs/security.md)\n`);
    const reply = JSON.parse(JSON.parse(r.out).reply) as { env: Record<string, string> };
    assert.equal(reply.env.HOME, dir, 'unsandboxed: the operator\'s HOME, not a box\'s');
    const required = await cli(['run', join(dir, 'profile.yaml'), '--message', 'hi'], env({ TURNBRIDGE_SANDBOX: 'bwrap' }));
    assert.notEqual(required.code, 0);
    assert.match(required.err, /TURNBRIDGE_SANDBOX=bwrap, but the sandbox cannot run here/);
    const chat = await cli(['chat', join(dir, 'profile.yaml')], env({ TURNBRIDGE_SANDBOX: 'bwrap' }));
    assert.notEqual(chat.code, 0, 'turnbridge chat honours it too');
    assert.match(chat.err, /TURNBRIDGE_SANDBOX=bwrap, but the sandbox cannot run here/);
  });

  it('agent.sandbox in turnbridge.yaml holds for run and chat as for start: bwrap refuses; off is not taken from the directory (TURNBRIDGE_SANDBOX=off is: unwarned); the environment wins', async () => {
    const project = join(dir, 'project');
    mkdirSync(project, { recursive: true });
    const profile = join(dir, 'profile.yaml');
    writeFileSync(join(project, 'turnbridge.yaml'), 'agent:\n  sandbox: bwrap\n');
    const run = await cli(['run', profile, '--message', 'hi'], env(), undefined, project);
    assert.notEqual(run.code, 0, run.out);
    assert.match(run.err, /TURNBRIDGE_SANDBOX=bwrap, but the sandbox cannot run here/);
    const chat = await cli(['chat', profile], env(), undefined, project);
    assert.notEqual(chat.code, 0, chat.out);
    assert.match(chat.err, /TURNBRIDGE_SANDBOX=bwrap, but the sandbox cannot run here/);
    const started = await cli(['start'], env(), /local chat at/, project);
    started.kill();
    assert.match(started.err, /TURNBRIDGE_SANDBOX=bwrap, but the sandbox cannot run here/, 'start says the same');

    writeFileSync(join(project, 'turnbridge.yaml'), 'agent:\n  sandbox: off\n');
    // The directory's file cannot take the box away (an agent working there could have written
    // it, test/e2e/sandbox/config-plant.test.ts): auto, here falling back with its warning.
    const fromFile = await cli(['run', profile, '--message', 'hi', '--json'], env(), undefined, project);
    assert.equal(fromFile.code, 0, fromFile.err);
    const [notTaken, fellBack] = fromFile.err.split('\n');
    assert.equal(notTaken, `warning: agent.sandbox: off in ${join(project, 'turnbridge.yaml')} is not taken by turnbridge run and chat (an agent that worked in this directory could have written it): the agent runs in the box, as by default. To run it unsandboxed on purpose, set TURNBRIDGE_SANDBOX=off in your environment.`);
    assert.match(fellBack!, /^warning: the sandbox cannot start here/);
    const off = await cli(['run', profile, '--message', 'hi', '--json'], env({ TURNBRIDGE_SANDBOX: 'off' }), undefined, project);
    assert.equal(off.code, 0, off.err);
    assert.equal(off.err, '', 'off on purpose: no probe, no warning');
    const envWins = await cli(['run', profile, '--message', 'hi', '--json'], env({ TURNBRIDGE_SANDBOX: 'auto' }), undefined, project);
    assert.equal(envWins.code, 0, envWins.err);
    assert.match(envWins.err, /^warning: the sandbox cannot start here/, 'TURNBRIDGE_SANDBOX wins over the file, as for start');
  });
});
