import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ECHO, ROOT, runCli } from './cli-process.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

test('--version prints the package version', async () => {
  for (const flag of ['--version', '-v']) {
    const r = await runCli([flag]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `turnbridge ${pkg.version} (AgentProc wire 0.4)\n`);
  }
});

test('--help for the program and for each command', async () => {
  const top = await runCli(['--help']);
  assert.equal(top.code, 0);
  assert.match(top.stdout, /^usage: turnbridge <run\|chat\|start\|doctor\|audit\|allow>/m);
  for (const cmd of ['run', 'chat', 'start', 'doctor', 'audit', 'allow']) assert.match(top.stdout, new RegExp(`^  ${cmd} `, 'm'));

  const run = await runCli(['run', '--help']);
  assert.equal(run.code, 0);
  assert.match(run.stdout, /^usage: turnbridge run <profile> --message TEXT/m);
  for (const opt of ['--message', '--session', '--session-name', '--attach', '--no-stream', '--json']) assert.ok(run.stdout.includes(opt), opt);

  const chat = await runCli(['chat', '-h']);
  assert.equal(chat.code, 0);
  assert.match(chat.stdout, /^usage: turnbridge chat <profile>/m);
  assert.match(chat.stdout, /\/new/);

  const audit = await runCli(['audit', '--help']);
  assert.equal(audit.code, 0);
  assert.match(audit.stdout, /^usage: turnbridge audit \[--since 24h\]/m);

  const start = await runCli(['start', '--help']);
  assert.equal(start.code, 0);
  assert.match(start.stdout, /^usage: turnbridge start/m);

  const doctor = await runCli(['doctor', '--help']);
  assert.equal(doctor.code, 0);
  assert.match(doctor.stdout, /^usage: turnbridge doctor \[--json\] \[--config FILE\]/m);
  for (const opt of ['--json', '--config']) assert.ok(doctor.stdout.includes(opt), opt);
});

test('bad arguments: exit 2, an error and the usage line on stderr, nothing on stdout', async () => {
  const cases: Array<[string[], RegExp, RegExp]> = [
    [[], /missing command/, /^usage: turnbridge <run\|chat\|start\|doctor\|audit\|allow>/m],
    [['fly'], /unknown command "fly"/, /^usage: turnbridge <run\|chat\|start\|doctor\|audit\|allow>/m],
    [['run'], /missing <profile>/, /^usage: turnbridge run /m],
    [['run', ECHO], /missing --message/, /^usage: turnbridge run /m],
    [['run', ECHO, '--message', ''], /empty turn/, /^usage: turnbridge run /m],
    [['run', ECHO, '--message'], /--message/, /^usage: turnbridge run /m],
    [['run', ECHO, '--message', 'x', '--bogus'], /unknown option --bogus$/m, /^usage: turnbridge run /m],
    [['run', ECHO, ECHO, '--message', 'x'], /unexpected argument/, /^usage: turnbridge run /m],
    [['chat'], /missing <profile>/, /^usage: turnbridge chat /m],
    [['chat', ECHO, '--json'], /unknown option --json$/m, /^usage: turnbridge chat /m],
    [['doctor', '--bogus'], /unknown option --bogus$/m, /^usage: turnbridge doctor /m],
    [['doctor', 'extra'], /unexpected argument "extra"/, /^usage: turnbridge doctor /m],
  ];
  for (const [args, error, usage] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', args.join(' '));
    assert.match(r.stderr, error, args.join(' '));
    assert.match(r.stderr, usage, args.join(' '));
  }
});
