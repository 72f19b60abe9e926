/**
 * SIGTERM to each documented start command drains the bridge: `npm start` (package.json),
 * `npx turnbridge start` (docs/operations.md), the Procfile's `web:` line, the systemd unit's
 * ExecStart and the Docker image's ENTRYPOINT + CMD (tini as PID 1's stand-in). The commands
 * are read from those files, so a file that changes is tested as it is. Each one serves the local
 * page with an agent that hangs; SIGTERM goes to the process the command started (what npm's
 * parent, systemd or `docker stop` signals); the running reply must end "interrupted: the
 * bridge restarted", the command must exit, and the port must close (no bridge left behind, as
 * when `npm start` ran `tsx`, which did not pass the signal on).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../integration/cli/cli-process.js';
import { pollUntil } from '../poll-until.js';

const FIXTURES = join(ROOT, 'test/fixtures/local');

function have(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

/** `web: node bin/turnbridge.js start` -> argv. */
function procfileArgv(): string[] {
  const line = readFileSync(join(ROOT, 'Procfile'), 'utf8').split('\n').find((l) => l.startsWith('web:'))!;
  return line.slice('web:'.length).trim().split(/\s+/);
}

function systemdArgv(): string[] {
  const line = readFileSync(join(ROOT, 'deploy/turnbridge.service'), 'utf8').split('\n').find((l) => l.startsWith('ExecStart='))!;
  return line.slice('ExecStart='.length).trim().split(/\s+/);
}

/** The exec-form ENTRYPOINT and CMD of the final stage, joined. */
function dockerArgv(): string[] {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').split('\n');
  const json = (word: string) => JSON.parse(lines.filter((l) => l.startsWith(`${word} `)).at(-1)!.slice(word.length + 1)) as string[];
  return [...json('ENTRYPOINT'), ...json('CMD')];
}

const COMMANDS: Array<{ name: string; argv: () => string[]; needs?: string; env?: Record<string, string> }> = [
  { name: 'npm start', argv: () => ['npm', 'start'], needs: 'npm' },
  // With this test's fresh HOME (an empty npm cache), npx installs this checkout as a package
  // first, which runs its `prepare` script: a rebuild of dist/ under every other test that runs
  // bin/turnbridge.js at the same time (they found no build in dist/). Scripts off: npx runs the
  // bin as it is.
  { name: 'npx turnbridge start', argv: () => ['npx', 'turnbridge', 'start'], needs: 'npx', env: { npm_config_ignore_scripts: 'true' } },
  { name: 'the Procfile web: line', argv: procfileArgv },
  { name: 'the systemd ExecStart', argv: systemdArgv },
  { name: 'the Docker ENTRYPOINT + CMD (tini)', argv: dockerArgv, needs: 'tini' },
];

for (const c of COMMANDS) {
  const skip = c.needs && !have(c.needs) ? `${c.needs} is not installed` : false;
  test(`SIGTERM to ${c.name} drains the bridge: the running reply is finalized, the command exits, the port closes`, { skip }, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tb-startcmd-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const [cmd, ...args] = c.argv();
    assert.ok(args.includes('start'), `${c.name} starts the bridge: ${[cmd, ...args].join(' ')}`);
    const child = spawn(cmd === '/usr/bin/node' ? process.execPath : cmd!, args, {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '', HOME: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info',
        TURNBRIDGE_PROFILE: join(FIXTURES, 'stubborn.yaml'), TURNBRIDGE_CONFIG: join(FIXTURES, 'grace.yaml'),
        TURNBRIDGE_DATA_DIR: join(dir, 'data'), TURNBRIDGE_WORKSPACE: join(dir, 'workspace'),
        // Signals are the subject here; the box has a private /tmp, where this workspace lives.
        TURNBRIDGE_SANDBOX: 'off',
        ...c.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { out += d; });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));

    const url = (await pollUntil(() => /local chat at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1], 'the local page URL', 60_000, () => out));
    const frames: string[] = [];
    let events: ReturnType<typeof request> | undefined;
    t.after(() => events?.destroy());
    const streamClosed = new Promise<void>((resolve) => {
      events = request(`${url}local/events?page=drain`, (res) => {
        res.setEncoding('utf8');
        res.on('data', (d: string) => frames.push(d));
        res.on('close', () => resolve());
      }).on('error', () => resolve()).end();
    });
    const sent = await fetch(`${url}local/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page: 'drain', text: 'hang please' }) });
    assert.equal(sent.status, 202);
    await pollUntil(() => /working on it/.test(frames.join('')), 'the agent running', 30_000, () => out);

    child.kill('SIGTERM');
    await exited;
    await streamClosed;
    assert.match(frames.join(''), /interrupted: the bridge restarted/, out);
    // Nothing left listening: the bridge itself stopped, not only the command that started it.
    await pollUntil(async () => fetch(`${url}healthz`).then(() => false, () => true), 'the port to close', 30_000, () => out);
    // Its last line may come after the port closed (and, through npx, after the command exited).
    await pollUntil(() => /"msg":"stopped"/.test(out), 'the bridge to log "stopped"', 30_000, () => out);
  });
}
