// `turnbridge start` as a real process, the one way it runs (node bin/turnbridge.js start, the
// build in dist/), in an empty directory, no tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT } from '../../integration/cli/cli-process.js';

const FIXTURES = join(ROOT, 'test/fixtures/local');

interface Started {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  waitOut(pattern: RegExp): Promise<RegExpMatchArray>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startMain(cwd: string, env: Record<string, string>, args: string[] = []): Started {
  const child = spawn(process.execPath, [BIN, 'start', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: Array<() => void> = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => { out += d; for (const w of [...waiters]) w(); });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { err += d; });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => {
    for (const w of [...waiters]) w();
    r({ code, signal });
  }));
  return {
    child,
    out: () => out,
    err: () => err,
    exit,
    waitOut: (pattern) => new Promise((resolvePromise, reject) => {
      const check = () => {
        const m = pattern.exec(out);
        if (m) {
          waiters.splice(waiters.indexOf(check), 1);
          resolvePromise(m);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          waiters.splice(waiters.indexOf(check), 1);
          reject(new Error(`main exited before printing ${pattern}; stdout:\n${out}\nstderr:\n${err}`));
        }
      };
      waiters.push(check);
      check();
    }),
  };
}

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'tb-start-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function killOnFailure(t: { after(fn: () => void): void }, s: Started): void {
  t.after(() => { if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL'); });
}

test('with no tokens it prints the local URL and the connect hint, serves health, readiness, metrics and the page, and stops on SIGTERM', async (t) => {
  const cwd = tempDir(t);
  // .env is loaded from the working directory; the real environment wins over it.
  writeFileSync(join(cwd, '.env'), 'PORT=0\nLOG_LEVEL=warn\nHOST=127.0.0.1\n');
  const s = startMain(cwd, {});
  killOnFailure(t, s);
  const [, url] = await s.waitOut(/local chat at (http:\/\/127\.0\.0\.1:\d+\/)/);
  assert.notEqual(new URL(url!).port, '3000', 'PORT=0 from .env was used');
  assert.match(s.out(), /to connect Slack set SLACK_BOT_TOKEN \+ SLACK_APP_TOKEN \(docs\/slack\.md\); Discord: DISCORD_TOKEN \(docs\/discord\.md\)/);
  assert.doesNotMatch(s.out(), /"level":30/, 'LOG_LEVEL=warn from .env was used');

  assert.equal((await fetch(`${url}healthz`)).status, 200);
  const ready = await fetch(`${url}readyz`);
  assert.equal(ready.status, 200);
  const readyBody = await ready.json() as { status: string; platforms: unknown; checks: { state: string } };
  assert.deepEqual({ status: readyBody.status, platforms: readyBody.platforms }, { status: 'ready', platforms: [{ name: 'local', state: 'ready' }, { name: 'recovery', state: 'ready' }] });
  assert.ok(['running', 'done'].includes(readyBody.checks.state), 'the start-up checks are reported');
  const metrics = await fetch(`${url}metrics`);
  assert.equal(metrics.status, 200);
  assert.match(await metrics.text(), /^# (HELP|TYPE) turnbridge_/m);
  const page = await fetch(url!);
  assert.match(await page.text(), /data-testid="message-input"/);

  s.child.kill('SIGTERM');
  assert.deepEqual(await s.exit, { code: 0, signal: null });
  assert.equal(s.err(), '');
});

test('SIGTERM finalizes a running turn as interrupted (the page still sees it), then exits 0; a second signal exits at once', async (t) => {
  const cwd = tempDir(t);
  const env = {
    PORT: '0', LOG_LEVEL: 'info', TURNBRIDGE_PROFILE: join(FIXTURES, 'stubborn.yaml'), TURNBRIDGE_CONFIG: join(FIXTURES, 'grace.yaml'),
  };

  for (const second of [false, true]) {
    const s = startMain(cwd, env);
    killOnFailure(t, s);
    const [, url] = await s.waitOut(/local chat at (http:\/\/127\.0\.0\.1:\d+\/)/);
    const frames: string[] = [];
    // Each wait ends: the partial's also when the turn ends without it, the event stream closes or
    // the bridge exits first (a missed event must fail the test, not leave it waiting for ever).
    let sawPartial!: () => void;
    let noPartial!: (err: Error) => void;
    const partial = new Promise<void>((r, reject) => { sawPartial = r; noPartial = reject; });
    void s.exit.then(() => noPartial(new Error(`main exited before the agent's partial; stdout:\n${s.out()}\nstderr:\n${s.err()}`)));
    const stream = new Promise<void>((resolveStream, rejectStream) => {
      const req = request(`${url}local/events?page=shutdown`, (res) => {
        res.setEncoding('utf8');
        let buffered = '';
        res.on('data', (d: string) => {
          frames.push(d);
          buffered += d;
          const events = buffered.split('\n\n');
          buffered = events.pop()!;
          for (const event of events) {
            const data = /^data: (.*)$/m.exec(event)?.[1];
            const item = data && /^event: item$/m.test(event) ? JSON.parse(data) as { kind: string; content?: { text: string; stopActionId?: string } } : undefined;
            if (item?.kind !== 'bot') continue;
            if (/working on it/.test(item.content!.text)) sawPartial();
            // the reply in its final state (no Stop) before the partial: the turn failed or ended
            else if (!item.content!.stopActionId) noPartial(new Error(`the turn ended without the agent's partial: ${frames.join('')}`));
          }
        });
        res.on('close', () => {
          noPartial(new Error(`the event stream closed before the agent's partial: ${frames.join('')}`));
          resolveStream();
        });
      });
      req.on('error', (err) => {
        noPartial(err);
        rejectStream(err);
      });
      req.end();
    });
    stream.catch(() => undefined); // awaited below (or its error surfaces through the partial)
    const sent = await fetch(`${url}local/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page: 'shutdown', text: 'hang please' }) });
    assert.equal(sent.status, 202);
    await partial;

    s.child.kill('SIGTERM');
    await s.waitOut(/shutting down/);
    if (second) {
      s.child.kill('SIGINT');
      const exit = await s.exit;
      assert.equal(exit.code, 130, `second signal exits at once with 130, got ${JSON.stringify(exit)}`);
      assert.match(s.err(), /second SIGINT, exiting now/);
    } else {
      assert.deepEqual(await s.exit, { code: 0, signal: null });
      await stream;
      assert.match(frames.join(''), /interrupted: the bridge restarted/);
      assert.match(s.out(), /"msg":"stopped"/);
    }
  }
});

test('a configuration mistake prints the message and the fix, no stack trace, exit 1; bad arguments exit 2', async (t) => {
  const cwd = tempDir(t);
  const bad = startMain(cwd, { PORT: 'abc' });
  killOnFailure(t, bad);
  assert.deepEqual(await bad.exit, { code: 1, signal: null });
  assert.match(bad.err(), /configuration error: .*PORT.*found "abc"/);
  assert.match(bad.err(), /\.env\.example/);
  assert.doesNotMatch(bad.err(), /^\s+at /m);

  const missing = startMain(cwd, { TURNBRIDGE_CONFIG: join(cwd, 'nope.yaml') });
  killOnFailure(t, missing);
  assert.deepEqual(await missing.exit, { code: 1, signal: null });
  assert.match(missing.err(), /nope\.yaml: config file not found\n {2}fix: /);

  const args = startMain(cwd, { PORT: '0' }, ['--bogus']);
  killOnFailure(t, args);
  assert.deepEqual(await args.exit, { code: 2, signal: null });
  assert.match(args.err(), /usage: turnbridge start/);
});

test('a port already in use is a clear error with the fix', async (t) => {
  const cwd = tempDir(t);
  const first = startMain(cwd, { PORT: '0', LOG_LEVEL: 'warn' });
  killOnFailure(t, first);
  const [, url] = await first.waitOut(/local chat at (http:\/\/127\.0\.0\.1:\d+\/)/);
  const port = new URL(url!).port;
  const second = startMain(cwd, { LOG_LEVEL: 'warn' }, ['--port', port]);
  killOnFailure(t, second);
  assert.deepEqual(await second.exit, { code: 1, signal: null });
  assert.match(second.err(), new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)\\n  fix: .*PORT=0 picks one`));
  first.child.kill('SIGTERM');
  assert.deepEqual(await first.exit, { code: 0, signal: null });
});
