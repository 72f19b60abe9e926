/**
 * The bridge's log on a terminal: `turnbridge start` in a pseudo-terminal (util-linux script),
 * one demo turn that fails, and one that asks permission (allowed from the page). Each event is
 * one line (`[HH:MM:SS] LEVEL: …`, no indented field lines), a turn takes a handful of lines, each
 * tagged with its turn and without the context "turn start" said, the failure is at WARN with the
 * agent's error text, and the start-up warning about the agents is said once. Not a terminal: JSON
 * lines, that warning among them (once).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, DEMO, ROOT } from '../../integration/cli/cli-process.js';
import { pollUntil } from '../poll-until.js';
import { pageSnapshot } from './page-snapshot.js';

const HAVE_SCRIPT = spawnSync('script', ['--version']).status === 0;
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** One turn on the page `page`: `text` (a demo turn that fails on "fail", asks for Bash otherwise), its prompt allowed. */
async function oneTurn(url: string, page: string, text: string, out: () => string): Promise<void> {
  const ends = (out().match(/turn end/g) ?? []).length;
  const sent = await fetch(`${url}local/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page, text }) });
  assert.equal(sent.status, 202);
  if (!/fail/.test(text)) {
    const promptId = await pollUntil(async () => (await pageSnapshot(url, page)).find((i) => i.kind === 'prompt' && i.view?.state === 'pending')?.view?.promptId, 'the prompt', 30_000, out);
    const allowed = await fetch(`${url}local/action`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page, action: 'allow', id: promptId }) });
    assert.equal(allowed.status, 200);
  }
  await pollUntil(() => (out().match(/turn end/g) ?? []).length > ends || undefined, 'the turn to end', 30_000, out);
}

/** The bridge's output over a failing turn (page "log") and one with an allowed prompt (page "ask"). */
async function twoTurns(tty: boolean): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tb-ttylog-'));
  try {
    const env = {
      PATH: process.env.PATH ?? '', HOME: dir, TERM: 'dumb', NO_COLOR: '1', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info',
      TURNBRIDGE_PROFILE: DEMO, TURNBRIDGE_DATA_DIR: join(dir, 'data'), TURNBRIDGE_WORKSPACE: join(dir, 'ws'),
      TURNBRIDGE_SANDBOX: 'off', DEMO_DELAY_MS: '1',
    };
    const cmd = [process.execPath, BIN, 'start'].map(q).join(' ');
    const child = tty
      ? spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(process.execPath, [BIN, 'start'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { out += d; });
    const exited = new Promise<void>((r) => child.on('close', () => r()));
    try {
      const url = await pollUntil(() => /local chat at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1], 'the URL', 60_000, () => out);
      await pollUntil(() => /start-up checks/.test(out), 'the start-up checks', 30_000, () => out);
      await oneTurn(url, 'log', 'please fail', () => out);
      await oneTurn(url, 'ask', 'hello', () => out);
    } finally {
      // script hangs up the pty on SIGTERM ("Session terminated"): the bridge gets SIGHUP or sees its parent gone.
      child.kill('SIGTERM');
      await exited;
    }
    return out.replace(/\r/g, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('on a terminal: one line per event, each of a turn tagged, a failed turn at WARN with its error, the agents warning once', { skip: HAVE_SCRIPT ? false : 'util-linux script is not installed' }, async () => {
  const out = await twoTurns(true);
  const lines = out.split('\n').filter((l) => l.trim() !== '');
  const logLines = lines.filter((l) => /^\[\d\d:\d\d:\d\d\] [A-Z]+: /.test(l));
  // Besides the log lines only the printed start-up lines: "turnbridge: …" and the connect hint.
  for (const l of lines) assert.ok(logLines.includes(l) || /^turnbridge: |^ {2}to connect Slack|^Session terminated/.test(l), `not one line per event: ${JSON.stringify(l)}\n${out}`);
  const turn = (page: string) => {
    const start = logLines.findIndex((l) => l.includes(` turn start local:local:${page} demo local-user `));
    assert.ok(start >= 0, `the turn start names the conversation without an empty trailing part:\n${out}`);
    const tag = /\] [A-Z]+: (\[[0-9a-f]{8}\]) turn start/.exec(logLines[start]!)![1]!;
    const end = logLines.findIndex((l, i) => i > start && l.includes(`${tag} turn end `));
    assert.ok(end > start, out);
    const of = logLines.slice(start, end + 1).filter((l) => l.includes(tag));
    for (const l of of.slice(1)) assert.doesNotMatch(l, /local:local:|\b(user|conversation|platform|profile)=/, 'the turn\'s context is said once');
    return { of, end: logLines[end]!, tag };
  };
  const failed = turn('log');
  assert.ok(failed.of.length <= 5, `the turn took ${failed.of.length} lines:\n${failed.of.join('\n')}`);
  assert.match(failed.end, /^\[\d\d:\d\d:\d\d\] WARN: \[[0-9a-f]{8}\] turn end outcome=error error="Demo failure: the message contained \\"fail\\"\."/);
  const asked = turn('ask');
  assert.ok(asked.of.length <= 6, `the turn with a prompt took ${asked.of.length} lines:\n${asked.of.join('\n')}`);
  const decisions = logLines.filter((l) => /permission allow/.test(l));
  assert.equal(decisions.length, 1, out);
  // The decision is one of the turn's lines: its tag, the decider as platform:id, nothing said twice.
  assert.ok(asked.of.includes(decisions[0]!), `tagged ${asked.tag}:\n${out}`);
  assert.match(decisions[0]!, /^\[\d\d:\d\d:\d\d\] INFO: \[[0-9a-f]{8}\] permission allow \(once\) Bash decider=local:local-user latencyMs=\d+$/);
  const agentsWarning = lines.filter((l) => /agents run unsandboxed/.test(l));
  assert.equal(agentsWarning.length, 1, `said once:\n${out}`);
});

test('not a terminal: JSON lines with every field, the agents warning once', async () => {
  const out = await twoTurns(false);
  const agentsWarning = out.split('\n').filter((l) => /agents run unsandboxed/.test(l));
  assert.equal(agentsWarning.length, 1, `said once:\n${out}`);
  assert.equal((JSON.parse(agentsWarning[0]!) as { level: number }).level, 40);
  const end = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'turn end');
  assert.ok(end, out);
  assert.equal(end.level, 40);
  assert.equal(end.error, 'Demo failure: the message contained "fail".');
  assert.equal(end.user, 'local-user');
  // The decision's line is the turn's too, each field once (the turn's logger binds the context).
  const raw = out.split('\n').find((l) => l.includes('"permission_decision"'));
  assert.ok(raw, out);
  for (const key of ['turn', 'platform', 'conversation', 'promptId']) assert.equal(raw.split(`,"${key}":`).length - 1, 1, `${key} once at the top: ${raw}`);
  const decision = JSON.parse(raw) as Record<string, unknown>;
  assert.equal(decision.conversation, 'local:local:ask:', 'the key as stored');
  assert.deepEqual(decision.decider, { platform: 'local', id: 'local-user', name: 'you' });
});
