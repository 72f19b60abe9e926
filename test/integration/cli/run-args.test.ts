// The CLI contract for option values and notices, through the real `turnbridge` process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, ECHO, parseJsonLine, runCli } from './cli-process.js';
import { attachStringValues } from '../../../src/cli/args.js';

const TURN_ECHO = join(FIXTURES, 'turn-echo.yaml');
const SCRIPTED = join(FIXTURES, 'scripted.yaml');

async function sentMessage(args: string[], input?: string): Promise<string> {
  const r = await runCli(['run', TURN_ECHO, ...args, '--json'], input === undefined ? {} : { input });
  assert.equal(r.code, 0, r.stderr);
  return String((JSON.parse(String(parseJsonLine(r.stdout).reply)) as { message: string }).message);
}

test('a message may start with a dash: --message -x, -m -x, --message=-x, -m--x', async () => {
  assert.equal(await sentMessage(['--message', '-hello']), '-hello');
  assert.equal(await sentMessage(['-m', '-x']), '-x');
  assert.equal(await sentMessage(['--message=-x']), '-x');
  assert.equal(await sentMessage(['--message', '--json']), '--json', 'the value is taken whole, as git commit -m does');
});

test('--message - reads the message from stdin (and --message=- too)', async () => {
  assert.equal(await sentMessage(['--message', '-'], 'from stdin\nline two\n'), 'from stdin\nline two\n');
  assert.equal(await sentMessage(['--message=-'], '-dash first'), '-dash first');
  const empty = await runCli(['run', TURN_ECHO, '--message', '-'], { input: '' });
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /empty turn cannot be sent/);
});

test('-- ends the options: what follows is positional', async () => {
  const r = await runCli(['run', '--message', 'hi', '--json', '--', ECHO]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(parseJsonLine(r.stdout).reply, 'You said: hi');
  const after = await runCli(['run', '--message', 'hi', '--', ECHO, '--json']);
  assert.equal(after.code, 2, 'after --, "--json" is a second positional');
  assert.match(after.stderr, /unexpected argument "--json"/);
});

test('a string option as the last argument still reports its missing value', async () => {
  const r = await runCli(['run', ECHO, '--message']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--message/);
});

test('attachStringValues rewrites only string options and stops at --', () => {
  const opts = { message: { type: 'string', short: 'm' }, json: { type: 'boolean' } } as const;
  assert.deepEqual(attachStringValues(['-m', '-x', '--json', '--', '--message', 'y'], opts), ['--message=-x', '--json', '--', '--message', 'y']);
  assert.deepEqual(attachStringValues(['--json', 'p'], opts), ['--json', 'p']);
});

test('--json notices: always present, and an oversized event dropped is named there', async () => {
  const r = await runCli(['run', join(FIXTURES, 'big-line.yaml'), '--message', 'x', '--json'], { env: { BIG_MB: '5' } });
  assert.equal(r.code, 0, r.stderr);
  const out = parseJsonLine(r.stdout);
  assert.equal(out.reply, 'after the big line');
  assert.deepEqual(out.partials, []);
  const notices = out.notices as string[];
  assert.equal(notices.length, 1);
  assert.match(notices[0]!, /oversized event from the agent \(5(\.0)? MiB\) was dropped/);
});

// The empty-partial rule as a script sees it: each of the three wire forms is dropped, so the
// result text is the reply and no empty chunk appears in partials.
for (const [form, line] of [
  ['"text":""', { type: 'partial', text: '' }],
  ['a non-string text', { type: 'partial', text: null }],
  ['no text', { type: 'partial' }],
] as const) {
  test(`--json with an empty partial (${form}): partials [] and the result text is the reply`, async () => {
    const steps = [{ line }, { line: { type: 'result', text: 'the body' } }];
    const r = await runCli(['run', SCRIPTED, '-m', 'x', '--json'], { env: { AGENT_STEPS: JSON.stringify(steps) } });
    assert.equal(r.code, 0, r.stderr);
    const out = parseJsonLine(r.stdout);
    assert.deepEqual(out.partials, []);
    assert.equal(out.reply, 'the body');
  });
}
