import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile, parseProfile, parseProfileText, resolveLaunch } from '../../../src/profile/index.js';
import type { TurnbridgeError } from '../../../src/errors.js';

const tmp = mkdtempSync(join(tmpdir(), 'tb-prof-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));
const ctx = { sessionId: '', sessionName: 'default' };

function errorOf(fn: () => unknown): Error & { code?: string; field?: string; file?: string } {
  try {
    fn();
  } catch (e) {
    return e as Error & { code?: string };
  }
  assert.fail('expected an error');
}

test('defaults per spec', () => {
  const p = parseProfile('command: node\n', '/x/profile.yaml');
  assert.equal(p.dir, '/x');
  assert.deepEqual(p.args, []);
  assert.equal(p.timeoutSecs, 1800);
  assert.equal(p.killGraceSecs, 5);
  assert.equal(p.streaming, true);
  assert.equal(p.permission, false);
  assert.deepEqual(p.env, {});
});

test('hub layout: launch fields under agentproc: beside metadata', () => {
  const p = parseProfile('name: demo\ndescription: A demo\ncli: claude\nagentproc:\n  command: node\n  args: [a.js]\n  timeout_secs: 60\n  permission: true\n', '/h/p.yaml');
  assert.equal(p.command, 'node');
  assert.deepEqual(p.args, ['a.js']);
  assert.equal(p.timeoutSecs, 60);
  assert.equal(p.permission, true);
  assert.equal(p.name, 'demo');
  assert.equal(p.description, 'A demo');
});

test('validation errors name the file, the field, what was found and what is expected', () => {
  const cases: Array<[string, RegExp]> = [
    ['command: node\ntimeout_secs: 0\n', /\/f\.yaml: field "timeout_secs": found 0, expected a positive number of seconds/],
    ['command: node\ntimeout_secs: -5\n', /field "timeout_secs": found -5/],
    ['command: node\nkill_grace_secs: 0\n', /field "kill_grace_secs": found 0/],
    ['command: node\nargs: "a b"\n', /field "args": found "a b", expected a YAML list/],
    ['args: [x]\n', /field "command": found nothing, expected the agent executable/],
    ['command: node\nstreaming: "yes"\n', /field "streaming": found "yes", expected true or false/],
    ['command: node\nenv: [A]\n', /field "env"/],
    ['command: node\nenv_allowlist: "A"\n', /field "env_allowlist"/],
    ['agentproc:\n  command: node\n  timeout_secs: 0\n', /field "agentproc\.timeout_secs"/],
    ['- a\n- b\n', /field "\(document\)"/],
    ['command: [unclosed\n', /not valid YAML/],
  ];
  for (const [yaml, re] of cases) {
    const e = errorOf(() => parseProfile(yaml, '/f.yaml'));
    assert.match(e.message, re, yaml);
    assert.ok(e.code === 'TB_PROFILE_INVALID', yaml);
  }
});

test('executor: unknown name warns and uses command; without command it is a hard error', () => {
  const { warnings } = parseProfileText('executor: claude-code\ncommand: node\n', '/f.yaml');
  assert.ok(warnings.some((w) => /executor "claude-code" is not built into turnbridge \(built-in executors: none\)/.test(w)));
  const e = errorOf(() => parseProfile('executor: claude-code\n', '/f.yaml'));
  assert.equal(e.code, 'TB_PROFILE_NO_COMMAND');
  assert.match(e.message, /built-in executors: none/);
});

test('{{MESSAGE}} is warned about', () => {
  const { warnings } = parseProfileText('command: node\nargs: ["{{MESSAGE}}"]\n');
  assert.ok(warnings.some((w) => w.includes('{{MESSAGE}}')));
});

test('an unknown field is refused, with the field it was probably meant to be (a typo would silently keep the default)', () => {
  assert.throws(() => parseProfileText('command: node\ntimeout_sec: 5\n', '/p/profile.yaml'), (e: TurnbridgeError) => {
    assert.equal(e.code, 'TB_PROFILE_INVALID');
    assert.equal(e.field, 'timeout_sec');
    assert.equal(e.message, '/p/profile.yaml: unknown field "timeout_sec" (did you mean "timeout_secs"?). rename it to "timeout_secs"');
    return true;
  });
  assert.throws(() => parseProfileText('agentproc:\n  command: node\n  argz: []\n'), /unknown field "agentproc\.argz" \(did you mean "agentproc\.args"\?\)/);
  assert.throws(() => parseProfileText('command: node\nwibble: 1\n'), (e: TurnbridgeError) => !e.message.includes('did you mean') && /the fields: command, args/.test(e.hint ?? ''));
  // Hub metadata beside the launch fields stays allowed.
  assert.equal(parseProfileText('name: x\ndescription: y\ncommand: node\n').profile.command, 'node');
});

test('a YAML error names the line and column and does not end in a dangling colon', () => {
  assert.throws(() => parseProfileText('command: [node\nargs: []\n', '/p/profile.yaml'), (e: TurnbridgeError) => {
    assert.match(e.message, /^\/p\/profile\.yaml: not valid YAML: .+ at line 2, column 1$/);
    assert.match(e.hint ?? '', /fix the YAML syntax/);
    return true;
  });
});

test('placeholders in command, args, cwd and env; a value never adds argv tokens', () => {
  mkdirSync(join(tmp, 'sess a b'), { recursive: true });
  const p = parseProfile([
    'command: "{{PROFILE_DIR}}/bin/my agent"',
    'args: ["--resume", "{{SESSION_ID}}", "$(echo pwned)", "{{SESSION_NAME}}", "`id`"]',
    'cwd: "{{PROFILE_DIR}}/{{SESSION_ID}}"',
    'env:',
    '  SID: "{{SESSION_ID}}"',
    '  DIR: "{{PROFILE_DIR}}"',
  ].join('\n'), join(tmp, 'profile.yaml'));
  const l = resolveLaunch(p, { sessionId: 'sess a b', sessionName: 'x; rm -rf /' }, {});
  assert.equal(l.command, `${tmp}/bin/my agent`);
  assert.deepEqual(l.args, ['--resume', 'sess a b', '$(echo pwned)', 'x; rm -rf /', '`id`']);
  assert.equal(l.cwd, join(tmp, 'sess a b'));
  assert.equal(l.env.SID, 'sess a b');
  assert.equal(l.env.DIR, tmp);
});

test('a placeholder value is never ${VAR}-expanded afterwards', () => {
  const p = parseProfile('command: node\nenv:\n  S: "{{SESSION_ID}}"\n  K: "${KEY}"\n', join(tmp, 'p.yaml'));
  const l = resolveLaunch(p, { sessionId: '${SECRET}', sessionName: '' }, { SECRET: 'leak', KEY: 'k' });
  assert.equal(l.env.S, '${SECRET}');
  assert.equal(l.env.K, 'k');
});

test('child env = infra set + profile env only; bridge secrets stay out', () => {
  const p = parseProfile('command: node\nenv:\n  MY_KEY: "${MY_KEY}"\n  LITERAL: plain\n  MISSING: "a${NOPE}b"\n', join(tmp, 'p.yaml'));
  const l = resolveLaunch(p, ctx, { PATH: '/bin', HOME: '/home/x', LANG: 'C', SLACK_BOT_TOKEN: 'xoxb-secret', MY_KEY: 'mine', DISCORD_TOKEN: 'd' });
  assert.deepEqual(l.env, { PATH: '/bin', HOME: '/home/x', LANG: 'C', MY_KEY: 'mine', LITERAL: 'plain', MISSING: 'ab' });
});

test('env_allowlist: names not listed expand to empty with a warning', () => {
  const p = parseProfile('command: node\nenv:\n  A: "${ALLOWED}"\n  B: "${AWS_SECRET_ACCESS_KEY}"\nenv_allowlist: [ALLOWED]\n', join(tmp, 'p.yaml'));
  const l = resolveLaunch(p, ctx, { ALLOWED: 'yes', AWS_SECRET_ACCESS_KEY: 'no' });
  assert.equal(l.env.A, 'yes');
  assert.equal(l.env.B, '');
  assert.deepEqual(l.warnings, ['env.B: ${AWS_SECRET_ACCESS_KEY} is set in the bridge\'s environment but not in env_allowlist, so the agent gets an empty value; add AWS_SECRET_ACCESS_KEY to env_allowlist to pass it']);
});

test('an unset variable is not a policy block: it is listed as unset, allowlisted or not', () => {
  const p = parseProfile('command: node\nenv:\n  A: "${ALLOWED_BUT_UNSET}"\n  B: "${NOT_LISTED_AND_UNSET}"\nenv_allowlist: [ALLOWED_BUT_UNSET]\n', join(tmp, 'p.yaml'));
  const l = resolveLaunch(p, ctx, {});
  assert.deepEqual([l.env.A, l.env.B], ['', '']);
  assert.deepEqual(l.warnings, [], 'no "blocked" wording for a variable that is not there');
  assert.deepEqual(l.unset, ['ALLOWED_BUT_UNSET', 'NOT_LISTED_AND_UNSET']);
});

test('cwd: absolute as is, relative to the profile dir, ~ expanded, default the bridge cwd, missing is an error', () => {
  mkdirSync(join(tmp, 'work'), { recursive: true });
  const file = join(tmp, 'p.yaml');
  assert.equal(resolveLaunch(parseProfile(`command: node\ncwd: ${tmp}\n`, file), ctx, {}).cwd, tmp);
  assert.equal(resolveLaunch(parseProfile('command: node\ncwd: work\n', file), ctx, {}).cwd, join(tmp, 'work'));
  assert.equal(resolveLaunch(parseProfile('command: node\ncwd: .\n', file), ctx, {}).cwd, tmp);
  assert.equal(resolveLaunch(parseProfile('command: node\ncwd: "~"\n', file), ctx, {}).cwd, homedir());
  assert.equal(resolveLaunch(parseProfile('command: node\n', file), ctx, {}).cwd, process.cwd());
  const e = errorOf(() => resolveLaunch(parseProfile('command: node\ncwd: nowhere\n', file), ctx, {}));
  assert.equal(e.code, 'TB_CWD_MISSING');
  assert.match(e.message, /field "cwd": directory .*nowhere does not exist/);
});

test('loadProfile: a missing file or a directory is a clear error', async () => {
  await assert.rejects(loadProfile(join(tmp, 'none.yaml')), /none\.yaml: no such file/);
  await assert.rejects(loadProfile(tmp), /is a directory/);
  writeFileSync(join(tmp, 'ok.yaml'), 'command: node\n');
  assert.equal((await loadProfile(join(tmp, 'ok.yaml'))).command, 'node');
});
