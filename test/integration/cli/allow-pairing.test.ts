/**
 * `turnbridge allow CODE` shows whom the code stands for and grants only once confirmed (y on a
 * terminal, or --yes); `--list`, `--remove` (audited), "already allowed", plain argument errors.
 * In-process with a terminal-like stdin for the question; the real CLI process for the rest.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { openGrants, createState, readAudit, type AuditEntry } from '../../../src/state/index.js';
import { allowCommand } from '../../../src/cli/allow.js';
import { silentLogger } from '../../../src/log.js';
import { BIN, ROOT, runCli } from './cli-process.js';
import { terminalIo } from './terminal-io.js';

function setup(t: { after(fn: () => void): void }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tb-pair-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { TURNBRIDGE_DATA_DIR: dataDir, TURNBRIDGE_CONFIG: '', PATH: process.env.PATH ?? '' };
  /** What the bridge does for a stranger: a code standing for them (another store handle, as another process). */
  const codeFor = async (identity: string, name?: string) => {
    const bridge = openGrants({ dataDir }, silentLogger);
    const code = await bridge.pairingCode(identity, name ? { name } : {});
    await bridge.close();
    return code!;
  };
  const granted = async (identity: string) => {
    const g = openGrants({ dataDir }, silentLogger);
    const has = await g.hasAny([identity]);
    await g.close();
    return has;
  };
  const stillThere = async (code: string) => {
    const g = openGrants({ dataDir }, silentLogger);
    const who = await g.peek(code);
    await g.close();
    return who;
  };
  const trail = async (): Promise<AuditEntry[]> => {
    const state = createState({ dataDir }, silentLogger);
    const all = await readAudit(state.store, 0);
    await state.close();
    return all;
  };
  return { dataDir, env, codeFor, granted, stillThere, trail };
}

/** allowCommand on a terminal: `answer` is typed once the question shows; `check` runs before it is typed. */
async function onTerminal(argv: string[], env: Record<string, string>, answer: string, check?: () => Promise<void>) {
  const t = terminalIo(env);
  const typed = new Promise<void>((resolve) => {
    (t.io.stderr as PassThrough).on('data', () => { if (t.err().includes('[y/N] ')) resolve(); });
  }).then(async () => {
    await check?.();
    t.stdin.write(answer);
  });
  const code = await allowCommand(argv, t.io);
  await typed;
  return { code, out: t.out(), err: t.err() };
}

test('allow CODE on a terminal shows platform, id, name and when they asked, and grants only on y', async (t) => {
  const s = setup(t);
  const code = await s.codeFor('slack:U0BEN', 'ben');
  const r = await onTerminal([code], s.env, 'y\n', async () => {
    assert.equal(await s.granted('slack:U0BEN'), false, 'nothing granted while the question is open');
  });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`^${code} is the pairing code of:\\n  platform  slack\\n  id        U0BEN\\n  name      ben\\n  asked     \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC \\(just now\\)\\n`));
  assert.match(r.err, /Let slack:U0BEN \(ben\) use the bridge\? \[y\/N\] $/);
  assert.match(r.out, /slack:U0BEN \(ben\) can use the bridge now/);
  assert.equal(await s.granted('slack:U0BEN'), true);
  assert.equal(await s.stillThere(code), undefined, 'the code is used up');
  const [grant] = await s.trail();
  assert.equal(grant!.kind, 'grant');
  assert.deepEqual(grant!.kind === 'grant' && [grant.identity, grant.name, grant.via, grant.by.platform], ['slack:U0BEN', 'ben', 'pairing', 'cli']);
});

test('allow CODE on a terminal: n (or anything but y) grants nothing and the code still works', async (t) => {
  const s = setup(t);
  const code = await s.codeFor('discord:80351110224678912', 'eve');
  const r = await onTerminal([code], s.env, 'n\n');
  assert.equal(r.code, 1);
  assert.match(r.out, /discord:80351110224678912 \(eve\): not granted/);
  assert.equal(await s.granted('discord:80351110224678912'), false);
  assert.equal((await s.stillThere(code))?.identity, 'discord:80351110224678912');
  assert.deepEqual(await s.trail(), [], 'nothing to audit');
});

/** The real CLI on a real terminal: script(1) (util-linux) gives it a pty; `answer` is typed once the question shows. */
function onPty(args: string[], env: Record<string, string>, answer: string): Promise<{ code: number | null; screen: string }> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let typed = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      screen += d;
      if (!typed && screen.includes('[y/N] ')) {
        typed = true;
        child.stdin.write(answer);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
  });
}

test('allow CODE on a real terminal (a pty): the question, then y grants', async (t) => {
  const s = setup(t);
  const code = await s.codeFor('slack:U0PTY', 'pat');
  const r = await onPty(['allow', code], s.env, 'y\r');
  assert.equal(r.code, 0, r.screen);
  assert.match(r.screen, /name      pat/);
  assert.match(r.screen, /Let slack:U0PTY \(pat\) use the bridge\? \[y\/N\] /);
  assert.match(r.screen, /slack:U0PTY \(pat\) can use the bridge now/);
  assert.equal(await s.granted('slack:U0PTY'), true);
});

test('allow CODE without a terminal refuses with the hint; --yes grants (the real CLI, stdin a pipe)', async (t) => {
  const s = setup(t);
  const code = await s.codeFor('slack:U0BEN', 'ben');
  const piped = await runCli(['allow', code], { env: s.env, input: 'y\n' });
  assert.equal(piped.code, 1, piped.stderr);
  assert.match(piped.stdout, /name      ben/, 'it still shows whom the code is for');
  assert.match(piped.stderr, new RegExp(`${code}: not granted: confirm on a terminal, or run \`turnbridge allow ${code} --yes\` once you know slack:U0BEN \\(ben\\) is whom you mean to let in`));
  assert.equal(await s.granted('slack:U0BEN'), false, 'a y on a pipe is no confirmation');
  const yes = await runCli(['allow', code.toLowerCase(), '--yes'], { env: s.env });
  assert.equal(yes.code, 0, yes.stderr);
  assert.match(yes.stdout, /slack:U0BEN \(ben\) can use the bridge now/);
  assert.equal(await s.granted('slack:U0BEN'), true);
  const again = await runCli(['allow', code, '--yes'], { env: s.env });
  assert.equal(again.code, 1);
  assert.match(again.stderr, /no such pairing code/, 'a code works once');
});

test('someone already allowed is told "already allowed", by id and by a fresh code; nothing is granted twice', async (t) => {
  const s = setup(t);
  const first = await runCli(['allow', 'slack:U0ANA'], { env: s.env });
  assert.match(first.stdout, /^slack:U0ANA can use the bridge now/m);
  const second = await runCli(['allow', 'slack:U0ANA'], { env: s.env });
  assert.equal(second.code, 0);
  assert.match(second.stdout, /^slack:U0ANA is already allowed; nothing changed$/m);
  assert.doesNotMatch(second.stdout, /can use the bridge now/);
  const code = await s.codeFor('slack:U0ANA', 'ana');
  const viaCode = await runCli(['allow', code], { env: s.env });
  assert.equal(viaCode.code, 0, 'no question needed');
  assert.match(viaCode.stdout, /slack:U0ANA \(ana\) is already allowed; nothing changed/);
  const listed = await runCli(['allow', 'slack:U0LIST'], { env: { ...s.env, TURNBRIDGE_ALLOW_USERS: 'slack:U0LIST' } });
  assert.match(listed.stdout, /slack:U0LIST is already allowed \(TURNBRIDGE_ALLOW_USERS/);
  assert.equal((await s.trail()).filter((e) => e.kind === 'grant').length, 1, 'one grant, one record');
});

test('--list shows every grant; --remove takes one away and is audited; argument errors are plain words', async (t) => {
  const s = setup(t);
  await runCli(['allow', 'slack:U0ANA', 'discord:80351110224678912'], { env: s.env });
  const list = await runCli(['allow', '--list'], { env: s.env });
  assert.equal(list.code, 0, list.stderr);
  const lines = list.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^IDENTITY\s+NAME\s+GRANTED \(UTC\)\s+BY\s+VIA$/);
  assert.deepEqual(lines.slice(1).map((l) => l.split(/\s{2,}/)[0]).sort(), ['discord:80351110224678912', 'slack:U0ANA']);
  assert.match(lines[1]!, /\s+cli:\S+\s+cli$/);
  const removed = await runCli(['allow', '--remove', 'slack:U0ANA'], { env: s.env });
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /slack:U0ANA: grant removed/);
  assert.equal(await s.granted('slack:U0ANA'), false);
  const none = await runCli(['allow', '--remove', 'slack:U0ANA'], { env: s.env });
  assert.match(none.stdout, /slack:U0ANA: had no grant/);
  const after = await runCli(['allow', '--list'], { env: s.env });
  assert.doesNotMatch(after.stdout, /U0ANA/);
  const kinds = (await s.trail()).map((e) => [e.kind, e.kind === 'grant' || e.kind === 'grant-removed' ? e.identity : '']);
  assert.deepEqual(kinds.filter(([k]) => k === 'grant-removed'), [['grant-removed', 'slack:U0ANA']], 'one removal recorded (the second removed nothing)');

  const cases: Array<[string[], RegExp]> = [
    [['allow', '--lst'], /^error: unknown option --lst$/m],
    [['allow'], /^error: name a pairing code or an identity/m],
    [['allow', '--remove'], /^error: --remove needs the identity to take out/m],
    [['allow', '--remove', 'K7QX2M'], /^error: "K7QX2M" looks like a pairing code: --remove takes the identity/m],
    [['allow', '--list', 'slack:U0ANA'], /^error: --list shows the grants and takes nothing else/m],
    [['allow', 'bob'], /^error: "bob" is neither a pairing code \(six letters and digits\) nor an identity/m],
    [['allow', '--config'], /^error: --config needs a value$/m],
  ];
  for (const [args, error] of cases) {
    const r = await runCli(args, { env: s.env });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, error, args.join(' '));
    assert.match(r.stderr, /^usage: turnbridge allow /m, args.join(' '));
    assert.doesNotMatch(r.stderr, /ERR_PARSE_ARGS|To specify a positional/, args.join(' '));
  }
});
