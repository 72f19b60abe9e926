/**
 * Questions and plans (claude's AskUserQuestion and ExitPlanMode) on the terminal: `chat` with
 * piped input and `run` on a terminal ask them as numbered choices and Approve / Keep planning, and
 * the agent gets what a card on Slack, Discord or the local page sends (the card test agent says
 * exactly what came back; its shapes are claude 2.1.332's, profiles/claude-code/README.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { runCommand } from '../../../src/cli/run.js';
import { COLOR, FEATURES, PLAN } from '../../fixtures/card-agents/questions.mjs';
import { BIN, ROOT, runCli } from './cli-process.js';
import { terminalIo } from './terminal-io.js';

const CARDS = join(ROOT, 'test/fixtures/card-agents/profile.yaml');
const chat = (...lines: string[]) => runCli(['chat', CARDS], { input: lines.map((l) => `${l}\n`).join('') });
const answered = (answers: Record<string, string>, ...questions: object[]) => `answered updated_input=${JSON.stringify({ questions, answers })}`;

test('chat: a question as numbered choices; the number typed sends {questions, answers} as a card does', async () => {
  const r = await chat('color', '2');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Which color should the button be\?/);
  assert.match(r.stdout, /1\. Red — Warm and loud\n\s*2\. Blue — Calm\n\s*3\. Green — Natural\n\s*o\. Other…/);
  assert.ok(r.stdout.includes(answered({ [COLOR.question]: 'Blue' }, COLOR)), r.stdout);
  assert.match(r.stdout, /Blue — chosen by /);
  assert.doesNotMatch(r.stdout, /Allow\? \[y\/N\]/, 'not a y/N prompt');
});

test('chat: a multi-select takes several numbers, in the card\'s order, labels joined with ", "', async () => {
  const r = await chat('features', '3, 1');
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes(answered({ [FEATURES.question]: 'Search, Dark mode' }, FEATURES)), r.stdout);
});

test('chat: two questions, one answered by "o" and typed text, the other by numbers; nothing goes until both have answers', async () => {
  const r = await chat('two', 'o', 'Teal, like the sea', '2 3');
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes(answered({ [COLOR.question]: 'Teal, like the sea', [FEATURES.question]: 'Export, Dark mode' }, COLOR, FEATURES)), r.stdout);
  assert.match(r.stdout, /“Teal, like the sea” — written by /);
});

test('chat: what is not a choice is said and asked again; nothing is sent for it', async () => {
  const r = await chat('color', '9', 'blue', '1 2', 'o', '', '1');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /That option is not on this card\./);
  assert.match(r.stdout, /This question takes one answer\./);
  assert.ok(r.stdout.includes(answered({ [COLOR.question]: 'Red' }, COLOR)), r.stdout);
  assert.equal(r.stdout.match(/answered updated_input/g)?.length, 1);
});

test('chat: Enter skips the question: a deny whose message the model reads, as Skip on a card', async () => {
  const r = await chat('color', '', 'color');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /denied: The user chose not to answer \(skipped by @[^)]+\)\. Go on without these answers, or ask in your reply\./);
  // the chat goes on: the next line is a message again, and its question ends with the input (Ctrl-D): skipped too
  assert.equal(r.stdout.match(/denied: The user chose not to answer/g)?.length, 2, r.stdout);
});

test('chat: a plan is shown once, then Approve lets the agent start (a plain allow)', async () => {
  for (const word of ['plan', 'plan said']) {
    const r = await chat(word, 'a');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.split('2. Fix the bug').length - 1, 1, `${word}: the plan shown once\n${r.stdout}`);
    assert.match(r.stdout, /Approve[\s\S]*Keep planning/);
    assert.match(r.stdout, /\napproved\n/, r.stdout);
  }
});

test('chat: Keep planning sends the feedback, word for word, as the deny message', async () => {
  const r = await chat('plan', 'k', '', 'k', 'Fewer steps, and test first');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /What should change in the plan\?/);
  assert.match(r.stdout, /\nrevise: Fewer steps, and test first\n/);
});

test('chat: a plan left unanswered (Enter, or the input ending) is not approved, and the agent is told so', async () => {
  for (const lines of [['plan', ''], ['plan']]) {
    const r = await chat(...lines);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\nrevise: .*not approved.*Do not start on it/, r.stdout);
  }
});

test('chat: a plan without text says so', async () => {
  const r = await chat('noplan', 'a');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /The agent sent no plan text\./);
  assert.match(r.stdout, /\napproved\n/);
  assert.ok(!r.stdout.includes(PLAN.trim()));
});

test('chat: a question not in claude\'s shape is an ordinary y/N prompt, as in the bridge', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tb-cards-'));
  try {
    const profile = join(dir, 'profile.yaml');
    const steps = [
      { line: { type: 'permission_request', request_id: 'q1', tool_name: 'AskUserQuestion', input: { questions: 'which one?' } } },
      { read: true },
      { line: { type: 'result', text: '' } },
    ];
    writeFileSync(profile, `command: ${process.execPath}\nargs: [${JSON.stringify(join(ROOT, 'test/fixtures/agents/scripted.mjs'))}]\npermission: true\nenv:\n  AGENT_STEPS: '${JSON.stringify(steps)}'\n`);
    const r = await runCli(['chat', profile], { input: 'hi\nn\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Permission request q1: AskUserQuestion \{"questions":"which one\?"\}\nAllow\? \[y\/N\] /);
    assert.match(r.stdout, /"behavior":"deny","message":"denied in chat"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** `turnbridge run` in process, stdin a terminal: `answers` typed one by one as each prompt shows. */
async function runOnTerminal(message: string, answers: string[]): Promise<{ code: number; out: string; err: string }> {
  const t = terminalIo();
  const left = [...answers];
  // A prompt waits for its line once what was written ends with it ("…Enter to skip: ").
  (t.io.stderr as PassThrough).on('data', () => {
    if (/(: |> )$/.test(t.err()) && left.length > 0) t.stdin.write(`${left.shift()}\n`);
  });
  const code = await runCommand([CARDS, '--message', message], t.io);
  return { code, out: t.out(), err: t.err() };
}

test('run on a terminal: a question, then the answer the agent reads; the question on stderr, the reply on stdout', async () => {
  const r = await runOnTerminal('color', ['3']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /3\. Green — Natural/);
  assert.ok(r.out.includes(answered({ [COLOR.question]: 'Green' }, COLOR)), r.out);
});

const HAVE_SCRIPT = spawnSync('script', ['--version']).status === 0;

test('turnbridge run on a real terminal (a pty): a plan sent back with feedback', { skip: HAVE_SCRIPT ? false : 'util-linux script is not installed' }, async () => {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = [process.execPath, BIN, 'run', CARDS, '--message', 'plan'].map(q).join(' ');
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: ROOT, env: { ...process.env, TERM: 'dumb' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const typed: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    if (typed.length === 0 && /Enter to leave it unapproved: $/.test(out)) typed.push('k\r');
    else if (typed.length === 1 && /What should change in the plan\?[^\n]*\n> $/.test(out)) typed.push('Smaller steps\r');
    else return;
    child.stdin.write(typed.at(-1));
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, out);
  assert.match(out, /revise: Smaller steps/, out);
});
