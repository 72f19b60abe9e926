/**
 * A broken profile stops the bridge before it starts: `turnbridge start` (the real command, in an
 * empty directory, no tokens) exits 1 naming the file, the field and the fix, and has created
 * nothing: no data dir (the store), no agent workspace, no listening socket. `run` and the
 * doctor say the same about the same profile, and so does `chat`. Cases: a YAML error, an unknown field
 * (`timeout_sec: 10`), `timeout_secs: "ten"`, a missing binary, `args` as a string, and a route
 * to a profile that does not exist.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ECHO, runCli } from '../../integration/cli/cli-process.js';
import { startRefused } from './refused-start.js';

const CASES: Array<{ name: string; profile?: string; config?: (dir: string) => string; text: RegExp; fix: RegExp }> = [
  { name: 'a YAML error', profile: 'command: [node\nargs: []\n', text: /not valid YAML: .+ at line \d+, column \d+ \(named by/, fix: /fix the YAML syntax/ },
  { name: 'an unknown field', profile: 'command: node\ntimeout_sec: 10\n', text: /unknown field "timeout_sec" \(did you mean "timeout_secs"\?\)/, fix: /rename it to "timeout_secs"/ },
  { name: 'timeout_secs: "ten"', profile: 'command: node\ntimeout_secs: "ten"\n', text: /field "timeout_secs": found "ten", expected a positive number of seconds/, fix: /write a number without quotes/ },
  { name: 'a missing binary', profile: 'command: tb-no-such-agent-binary\n', text: /field "command": "tb-no-such-agent-binary" is not found on PATH/, fix: /install it, or fix "command"/ },
  { name: 'args as a string', profile: 'command: node\nargs: "agent.mjs --fast"\n', text: /field "args": found "agent\.mjs --fast", expected a YAML list of argv tokens/, fix: /each list item is one argument/ },
];

for (const c of CASES) {
  test(`start refuses a default profile with ${c.name}: exit 1, the file, the field, the fix; nothing created; run, chat and doctor say the same`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tb-refuse-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const profile = join(dir, 'profile.yaml');
    writeFileSync(profile, c.profile!);
    const data = join(dir, 'data');
    const workspace = join(dir, 'workspace');
    const r = await startRefused(dir, { TURNBRIDGE_PROFILE: profile, TURNBRIDGE_DATA_DIR: data, TURNBRIDGE_WORKSPACE: workspace });
    assert.equal(r.code, 1, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const [first, second, ...rest] = r.stderr.trimEnd().split('\n');
    assert.ok(first!.startsWith(`turnbridge: ${profile}: `), r.stderr);
    assert.match(first!, c.text);
    assert.match(first!, /\(named by TURNBRIDGE_PROFILE \/ default_profile\)$/);
    assert.match(second!, /^ {2}fix: /);
    assert.match(second!, c.fix);
    assert.deepEqual(rest, [], 'two lines, no stack');
    assert.equal(r.stdout, '', 'no URL: nothing listened');
    assert.ok(!existsSync(data), 'the store was not created');
    assert.ok(!existsSync(workspace), 'the workspace was not created');

    // The same text and fix from `run` and from the doctor.
    const text = first!.slice('turnbridge: '.length).replace(/ \(named by .+\)$/, '');
    const fix = second!.trim();
    const run = await runCli(['run', profile, '--message', 'hi'], { cwd: dir });
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr, `error: ${text}\n  ${fix}\n`);
    const chat = await runCli(['chat', profile], { cwd: dir, input: '' });
    assert.equal(chat.code, 2, chat.stderr);
    assert.equal(chat.stderr, `error: ${text}\n  ${fix}\n`);
    const doctor = await runCli(['doctor'], { cwd: dir, env: { TURNBRIDGE_PROFILE: profile, TURNBRIDGE_DATA_DIR: data, TURNBRIDGE_WORKSPACE: workspace } });
    assert.equal(doctor.code, 1, doctor.stdout);
    const shown = doctor.stdout.split('\n');
    const at = shown.findIndex((l) => l.includes(text));
    assert.ok(at > 0, `doctor shows "${text}":\n${doctor.stdout}`);
    assert.equal(shown[at], `  ✗ ${first!.slice('turnbridge: '.length)}`, 'the line start-up printed');
    assert.equal(shown[at + 1]!.trim(), fix);
    assert.equal(doctor.stdout.split(fix).length, 2, 'the fix is printed once');
  });
}

test('start refuses a route to a profile that does not exist, naming the route', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tb-refuse-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'turnbridge.yaml');
  writeFileSync(config, `default_profile: ${ECHO}\nroutes:\n  - platform: slack\n    channel: C0OPS\n    profile: ops/profile.yaml\n`);
  const data = join(dir, 'data');
  const r = await startRefused(dir, { TURNBRIDGE_DATA_DIR: data, TURNBRIDGE_WORKSPACE: join(dir, 'workspace') });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr.split('\n')[0], `turnbridge: profile ${join(dir, 'ops/profile.yaml')}: no such file (named by routes[0].profile in ${config})`);
  assert.match(r.stderr.split('\n')[1]!, /^ {2}fix: /);
  assert.ok(!existsSync(data), 'the store was not created');
});

test('a good profile still starts (the check is not a refusal of everything)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tb-refuse-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const r = await startRefused(dir, { TURNBRIDGE_PROFILE: ECHO, TURNBRIDGE_DATA_DIR: join(dir, 'data'), TURNBRIDGE_WORKSPACE: join(dir, 'workspace') });
  assert.match(r.stdout, /local chat at http:\/\/127\.0\.0\.1:\d+/, r.stderr);
});
