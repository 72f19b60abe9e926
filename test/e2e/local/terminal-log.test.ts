/**
 * The bridge's log on a terminal: `turnbridge start` in a pseudo-terminal (util-linux script),
 * one demo turn that fails. Each event is one line (`[HH:MM:SS] LEVEL: …`, no indented field
 * lines), the turn takes a handful of lines, the failure is at WARN with the agent's error text,
 * and the start-up warning about the agents is said once. Not a terminal: JSON lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, DEMO, ROOT } from '../../integration/cli/cli-process.js';
import { pollUntil } from '../poll-until.js';

const HAVE_SCRIPT = spawnSync('script', ['--version']).status === 0;
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

async function oneFailingTurn(tty: boolean): Promise<string> {
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
      const sent = await fetch(`${url}local/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page: 'log', text: 'please fail' }) });
      assert.equal(sent.status, 202);
      await pollUntil(() => /turn end/.test(out), 'the turn to end', 30_000, () => out);
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

test('on a terminal: one line per event, a failed turn at WARN with its error, the agents warning once', { skip: HAVE_SCRIPT ? false : 'util-linux script is not installed' }, async () => {
  const out = await oneFailingTurn(true);
  const lines = out.split('\n').filter((l) => l.trim() !== '');
  const logLines = lines.filter((l) => /^\[\d\d:\d\d:\d\d\] [A-Z]+: /.test(l));
  // Besides the log lines only the printed start-up lines: "turnbridge: …" and the connect hint.
  for (const l of lines) assert.ok(logLines.includes(l) || /^turnbridge: |^ {2}to connect Slack|^Session terminated/.test(l), `not one line per event: ${JSON.stringify(l)}\n${out}`);
  const start = logLines.findIndex((l) => / turn start /.test(l));
  const end = logLines.findIndex((l) => / turn end /.test(l));
  assert.ok(start >= 0 && end > start, out);
  const turnLines = logLines.slice(start, end + 1);
  assert.ok(turnLines.length <= 5, `the turn took ${turnLines.length} lines:\n${turnLines.join('\n')}`);
  assert.match(logLines[start]!, /turn start local:local:log: demo local-user/);
  assert.match(logLines[end]!, /^\[\d\d:\d\d:\d\d\] WARN: \[[0-9a-f]{8}\] turn end outcome=error error="Demo failure: the message contained \\"fail\\"\."/);
  for (const l of turnLines.slice(1)) assert.doesNotMatch(l, /local-user|conversation=/, 'the turn\'s context is said once');
  const agentsWarning = lines.filter((l) => /agents run unsandboxed/.test(l));
  assert.equal(agentsWarning.length, 1, `said once:\n${out}`);
});

test('not a terminal: JSON lines with every field', async () => {
  const out = await oneFailingTurn(false);
  const end = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'turn end');
  assert.ok(end, out);
  assert.equal(end.level, 40);
  assert.equal(end.error, 'Demo failure: the message contained "fail".');
  assert.equal(end.user, 'local-user');
});
