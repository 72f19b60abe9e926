/**
 * The agent cannot read the bridge's secrets: a spy agent (a real process) tries the bridge's
 * .env, its data dir and /proc/<bridge pid>/environ. Unsandboxed it gets them (which is why the
 * bridge warns at start-up); in the bubblewrap sandbox every read fails.
 */
import { strict as assert } from 'node:assert';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { decideSandbox, run, sandboxFix, sandboxProblem, type LaunchPolicy } from '../../../src/runner/index.js';
import { checkSecurity } from '../../../src/main.js';
import { loadConfig } from '../../../src/config/index.js';
import { silentLogger } from '../../../src/log.js';
import type { Profile } from '../../../src/profile/index.js';

const AGENTS = fileURLToPath(new URL('../../fixtures/agents/', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'tb-sandbox-'));
const bridgeDir = join(root, 'bridge');
const dataDir = join(bridgeDir, 'data');
const workspace = join(root, 'workspace');
mkdirSync(dataDir, { recursive: true });
mkdirSync(workspace);
writeFileSync(join(bridgeDir, '.env'), 'DISCORD_TOKEN=spy-me-if-you-can\n', { mode: 0o600 });
writeFileSync(join(dataDir, 'sessions.json'), '{"secret":"session"}');
chmodSync(dataDir, 0o700);
after(() => rmSync(root, { recursive: true, force: true }));

const targets = [join(bridgeDir, '.env'), dataDir, join(dataDir, 'sessions.json')];
const spy: Profile = {
  dir: AGENTS, command: process.execPath, args: [join(AGENTS, 'spy.mjs')], timeoutSecs: 30, killGraceSecs: 1, streaming: true, permission: false,
  env: { SPY_TARGETS: JSON.stringify(targets), SPY_BRIDGE_PID: String(process.pid) },
};
const policy = (sandbox: LaunchPolicy['sandbox'], runAs?: { uid: number; gid: number }): LaunchPolicy => ({
  defaultCwd: workspace, protectedPaths: [bridgeDir, join(bridgeDir, '.env'), dataDir], bridgeDir, sandbox, ...(runAs ? { runAs } : {}),
});

async function spyReport(sandbox: 'off' | 'bwrap', runAs?: { uid: number; gid: number }) {
  const r = await run(spy, { message: 'spy' }, {}, { launch: policy(sandbox, runAs), logger: silentLogger });
  assert.equal(r.error, null, r.error ?? '');
  return JSON.parse(r.reply) as { pid: number; ppid: number; cwd: string; results: Array<{ path: string; ok: boolean; text?: string }> };
}

const bwrapMissing = sandboxProblem();

describe('agent sandbox', () => {
  it('unsandboxed, the spy reads the bridge\'s .env, data dir and environ: the start-up warning says so', async () => {
    const report = await spyReport('off');
    assert.equal(report.cwd, workspace, 'the agent works in the workspace, not the bridge\'s directory');
    assert.ok(report.results.every((x) => x.ok), JSON.stringify(report.results));
    assert.match(report.results[0]!.text!, /spy-me-if-you-can/);
    // Off on purpose (TURNBRIDGE_SANDBOX=off): the start-up line says so and how to box them in.
    const lines = checkSecurity(loadConfig({ env: { TURNBRIDGE_SANDBOX: 'off' }, cwd: bridgeDir }), true, silentLogger);
    assert.ok(lines.some((l) => /agents run unsandboxed \(TURNBRIDGE_SANDBOX=off\) as the bridge's user/.test(l) && /TURNBRIDGE_SANDBOX=auto \(the default\) or bwrap/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /access is closed and no one is on the access list yet/.test(l) && /turnbridge allow/.test(l)));
  });

  it('in the bubblewrap sandbox every read fails; the workspace is writable', { skip: bwrapMissing ?? false }, async () => {
    const report = await spyReport('bwrap');
    assert.equal(report.cwd, workspace);
    const [env, dataList, sessions, bridgeEnviron, parentEnviron] = report.results;
    for (const x of [env!, dataList!, sessions!]) assert.equal(x.ok && !isEmptyHidden(x), false, `${x.path} must not be readable: ${JSON.stringify(x)}`);
    // The bridge's pid is not in the agent's PID namespace; its parent there is bwrap's init,
    // whose environment is the agent's own composed one, not the bridge's.
    const mine = readFileSync(`/proc/${process.pid}/environ`, 'utf8').slice(0, 200);
    for (const x of [bridgeEnviron!, parentEnviron!]) assert.ok(!x.ok || x.text !== mine, `${x.path} is not the bridge's environment`);
    assert.ok(report.pid < 10, `a new PID namespace (pid ${report.pid})`);
    const r = await run({ ...spy, args: ['-e', "process.stdin.once('data',()=>{require('fs').writeFileSync('made-here','x');console.log(JSON.stringify({type:'result',text:require('fs').readFileSync('made-here','utf8')}))})"] },
      { message: 'write' }, {}, { launch: policy('bwrap'), logger: silentLogger });
    assert.equal(r.reply, 'x');
  });

  it('an agent script named by an absolute path under a hidden place (/tmp, a home) is shown read-only, its directory with it', { skip: bwrapMissing ?? false }, async () => {
    // A bridge installed under /tmp: the box's /tmp is its own, but the agent must still find its program.
    const place = mkdtempSync(join(tmpdir(), 'tb-agent-under-tmp-'));
    try {
      writeFileSync(join(place, 'helper.cjs'), "module.exports = 'from a sibling';\n");
      writeFileSync(join(place, 'agent.cjs'), "process.stdin.once('data', () => { console.log(JSON.stringify({ type: 'result', text: require('./helper.cjs') })); });\n");
      const profile: Profile = { ...spy, dir: '', args: [join(place, 'agent.cjs')] };
      const r = await run(profile, { message: 'hi' }, {}, { launch: policy('bwrap'), logger: silentLogger });
      assert.equal(r.error, null, r.error ?? '');
      assert.equal(r.reply, 'from a sibling');
      // The bridge's config file beside the agent (a protected file): the directory is shown, the file stays masked.
      const config = join(place, 'turnbridge.yaml');
      writeFileSync(config, 'bus_secret: do-not-show\n');
      const guarded: LaunchPolicy = { ...policy('bwrap'), protectedPaths: [...policy('bwrap').protectedPaths!, config] };
      const beside = await run({ ...profile, dir: place, args: ['-e', `process.stdin.once('data',()=>{console.log(JSON.stringify({type:'result',text:require(${JSON.stringify(join(place, 'helper.cjs'))})+'|'+(()=>{try{return require('fs').readFileSync(${JSON.stringify(config)},'utf8')}catch(e){return e.code}})()}))})`] },
        { message: 'hi' }, {}, { launch: guarded, logger: silentLogger });
      assert.equal(beside.error, null, beside.error ?? '');
      assert.match(beside.reply, /^from a sibling\|(EACCES)?$/, 'the protected file is masked (empty or refused), never its text');
      const scripted = await run({ ...profile, dir: place }, { message: 'hi' }, {}, { launch: guarded, logger: silentLogger });
      assert.equal(scripted.reply, 'from a sibling', 'the script beside a protected file runs');
      // Shown, not writable.
      const w = await run({ ...profile, args: ['-e', `process.stdin.once('data',()=>{let t;try{require('fs').writeFileSync(${JSON.stringify(join(place, 'planted'))},'x');t='wrote'}catch(e){t=e.code}console.log(JSON.stringify({type:'result',text:t}))})`] },
        { message: 'hi' }, {}, { launch: policy('bwrap'), logger: silentLogger });
      assert.notEqual(w.reply, 'wrote');
    } finally {
      rmSync(place, { recursive: true, force: true });
    }
  });

  const notRoot = typeof process.getuid !== 'function' || process.getuid() !== 0 ? 'run_as needs the test to run as root (setuid)' : false;
  it('run_as (bridge as root): the spy, as another user, can open neither the 0600 .env, the 0700 data dir nor the bridge\'s environ', { skip: notRoot }, async () => {
    chownSync(workspace, 65534, 65534);
    try {
      const report = await spyReport('off', { uid: 65534, gid: 65534 });
      const [env, dataList, sessions, bridgeEnviron] = report.results;
      for (const x of [env!, dataList!, sessions!, bridgeEnviron!]) assert.equal(x.ok, false, `${x.path}: ${JSON.stringify(x)}`);
      assert.equal((bridgeEnviron as { error?: string }).error, 'EACCES');
    } finally {
      chownSync(workspace, 0, 0);
    }
  });

  it('the start-up probe names what is missing', () => {
    assert.equal(sandboxProblem('/nonexistent/bwrap'), '/nonexistent/bwrap is not installed');
    assert.equal(sandboxFix('/nonexistent/bwrap is not installed'), 'install bubblewrap (Debian: apt-get install bubblewrap)');
  });

  it('by default (auto) the box is on where it can start, and the start-up line names the mode', { skip: bwrapMissing ?? false }, () => {
    const config = loadConfig({ env: {}, cwd: bridgeDir });
    assert.equal(config.agent.sandbox, 'auto');
    const lines = checkSecurity(config, true, silentLogger);
    assert.ok(lines.some((l) => /^turnbridge: agents run sandboxed \(TURNBRIDGE_SANDBOX=auto, the default\)/.test(l)), lines.join('\n'));
  });

  // A bwrap that fails the way it does in a Docker container under the default seccomp profile.
  const seccompBwrap = join(root, 'bwrap-in-docker');
  writeFileSync(seccompBwrap, '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with \'sysctl kernel.unprivileged_userns_clone=1\'." >&2\nexit 1\n', { mode: 0o755 });

  it('auto where the box cannot start: the probe says why, the turn runs unsandboxed; bwrap refuses the turn with the fix', async () => {
    const problem = sandboxProblem(seccompBwrap);
    assert.match(problem ?? '', /cannot make the agent box here: bwrap: No permissions to create new namespace/);
    assert.deepEqual(decideSandbox('auto', { bwrapPath: seccompBwrap }), { inForce: 'off', requested: 'auto', problem });
    const auto = await run(spy, { message: 'spy' }, {}, { launch: { ...policy('off'), sandbox: 'auto', bwrapPath: seccompBwrap }, logger: silentLogger });
    assert.equal(auto.error, null, auto.error ?? '');
    assert.match(JSON.parse(auto.reply).results[0].text, /spy-me-if-you-can/, 'unsandboxed: the fallback is real');
    const required = await run(spy, { message: 'spy' }, {}, { launch: { ...policy('off'), sandbox: 'bwrap', bwrapPath: seccompBwrap }, logger: silentLogger });
    assert.equal(required.reply, '');
    assert.match(required.error ?? '', /The agent sandbox cannot start here \(TURNBRIDGE_SANDBOX=bwrap\): .*No permissions to create new namespace.*To fix: let bubblewrap make user namespaces: .*kernel\.unprivileged_userns_clone=1.*seccomp=unconfined/);
  });

  it('refuses an agent cwd that holds the bridge\'s .env or data dir, or lies inside the data dir', async () => {
    for (const cwd of [bridgeDir, root, join(dataDir)]) {
      const r = await run({ ...spy, cwd }, { message: 'x' }, {}, { launch: policy('off'), logger: silentLogger });
      assert.match(r.error ?? '', /must not see/, cwd);
    }
    mkdirSync(join(dataDir, 'inner'), { recursive: true });
    const inside = await run({ ...spy, cwd: join(dataDir, 'inner') }, { message: 'x' }, {}, { launch: policy('off'), logger: silentLogger });
    assert.match(inside.error ?? '', /is inside .*data/);
    const ok = await run({ ...spy, cwd: workspace }, { message: 'x' }, {}, { launch: policy('off'), logger: silentLogger });
    assert.equal(ok.error, null);
  });
});

/** A hidden directory shows as an empty tmpfs; a hidden file as /dev/null (0 bytes): nothing of the bridge's. */
function isEmptyHidden(x: { ok: boolean; text?: string; entries?: string[]; bytes?: number } & Record<string, unknown>): boolean {
  return (Array.isArray(x.entries) && x.entries.length === 0) || x.bytes === 0;
}
