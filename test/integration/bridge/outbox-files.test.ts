/**
 * The outbox on disk (src/bridge/outbox-files.ts), from the attacker's side: an agent that plants
 * links to the bridge's secrets, hard links, pipes, directories, huge files, its whole outbox as a
 * link, or swaps a file after the scan, gets none of it posted and the bridge never blocks; what
 * it may send goes out by a safe name and lands in sent/.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import {
  MAX_ENTRIES, conversationOfStaged, outboxStaging, prepareOutbox, readOutboxFile, returnStaged, safeFileName, settleOutbox, stagedName, takeOutbox, type OutboxLimits,
} from '../../../src/bridge/turns/outbox-files.js';
import { plainUser } from '../../e2e/sandbox/spy-world.js';

const roots: string[] = [];
after(() => { for (const r of roots) rmSync(r, { recursive: true, force: true }); });

const LIMITS: OutboxLimits = { maxFiles: 10, maxFileBytes: 1000 };
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');

/** A workspace root with one conversation directory, its outbox made, and a secret beside it (the bridge's). */
async function world() {
  const root = mkdtempSync(join(tmpdir(), 'tb-outbox-'));
  roots.push(root);
  const conv = join(root, 'conv-0123456789abcdef');
  mkdirSync(conv, { mode: 0o700 });
  const outbox = await prepareOutbox(conv);
  const secrets = join(root, '..', `${root.split('/').pop()}-secrets`);
  mkdirSync(secrets);
  roots.push(secrets);
  writeFileSync(join(secrets, 'token.txt'), 'xoxb-the-bridge-token');
  const staging = outboxStaging(root);
  let turn = 0;
  const take = (limits: OutboxLimits = LIMITS) => takeOutbox(conv, staging, stagedName('conv-0123456789abcdef', `turn-${++turn}`), limits);
  return { root, conv, outbox, secrets, staging, take };
}

describe('outbox on disk', () => {
  it('two files, a PNG among them, are taken in name order with their types; dot-files are left alone', async () => {
    const w = await world();
    writeFileSync(join(w.outbox, 'plot.png'), PNG);
    writeFileSync(join(w.outbox, 'data.csv'), 'a,b\n');
    writeFileSync(join(w.outbox, '.plot.png.swp'), 'editor');
    const snap = (await w.take())!;
    assert.deepEqual(snap.files.map((f) => [f.name, f.mimeType, f.size]), [['data.csv', 'text/csv', 4], ['plot.png', 'image/png', PNG.length]]);
    assert.deepEqual(snap.skipped, []);
    assert.deepEqual(await readOutboxFile(snap, snap.files[1]!), PNG);
    assert.equal(existsSync(w.outbox), false, 'the outbox is out of the agent\'s reach while it is read');
    assert.equal(await settleOutbox(snap, { sent: snap.files.map((f) => f.entry), skipped: [] }), true);
    assert.deepEqual(readdirSync(w.outbox).sort(), ['.plot.png.swp', 'sent']);
    assert.deepEqual(readdirSync(join(w.outbox, 'sent')).sort(), ['data.csv', 'plot.png']);
    assert.equal(readdirSync(w.staging).length, 0);
  });

  it('an empty outbox (or none) is nothing to do, and stays where it is', async () => {
    const w = await world();
    assert.equal(await w.take(), undefined);
    assert.ok(lstatSync(w.outbox).isDirectory());
    rmSync(w.outbox, { recursive: true });
    assert.equal(await w.take(), undefined);
  });

  it('links, hard links, pipes, directories: refused by name with why; the secrets are never read', async () => {
    const w = await world();
    symlinkSync(join(w.secrets, 'token.txt'), join(w.outbox, 'token.txt'));
    symlinkSync(w.secrets, join(w.outbox, 'secrets'));
    linkSync(join(w.secrets, 'token.txt'), join(w.outbox, 'hard.txt'));
    execFileSync('mkfifo', [join(w.outbox, 'pipe')]);
    mkdirSync(join(w.outbox, 'sub'));
    writeFileSync(join(w.outbox, 'sub', 'inner.txt'), 'deep');
    writeFileSync(join(w.outbox, 'ok.txt'), 'fine');
    const snap = (await w.take())!;
    assert.deepEqual(snap.files.map((f) => f.name), ['ok.txt']);
    const why = Object.fromEntries(snap.skipped.map((s) => [s.entry, s.reason]));
    assert.match(why['token.txt']!, /symbolic link/);
    assert.match(why['secrets']!, /symbolic link/);
    assert.match(why['hard.txt']!, /other hard links/);
    assert.match(why['pipe']!, /not a regular file/);
    assert.match(why['sub']!, /directory/);
    await settleOutbox(snap, { sent: ['ok.txt'], skipped: snap.skipped.map((s) => s.entry) });
    assert.deepEqual(readdirSync(join(w.outbox, 'skipped')).sort(), ['hard.txt', 'pipe', 'secrets', 'sub', 'token.txt']);
    // moved as links, never followed: the secrets are where they were, whole
    assert.equal(readFileSync(join(w.secrets, 'token.txt'), 'utf8'), 'xoxb-the-bridge-token');
    assert.ok(lstatSync(join(w.outbox, 'skipped', 'token.txt')).isSymbolicLink());
  });

  it('the whole outbox a link to the bridge\'s secrets: nothing sent, nothing moved into or out of them', async () => {
    const w = await world();
    rmSync(w.outbox, { recursive: true });
    symlinkSync(w.secrets, w.outbox);
    const snap = (await w.take())!;
    assert.deepEqual(snap.files, []);
    assert.match(snap.skipped[0]!.reason, /outbox\/ was a symbolic link/);
    await settleOutbox(snap, { sent: [], skipped: [] });
    assert.deepEqual(readdirSync(w.secrets), ['token.txt']);
    assert.ok(lstatSync(w.outbox).isSymbolicLink(), 'the link is put back as it was');
  });

  it('sizes and counts: empty, over limits.outbox_bytes, over the platform\'s own lower limit, past limits.outbox_files', async () => {
    const w = await world();
    writeFileSync(join(w.outbox, 'a-empty.txt'), '');
    writeFileSync(join(w.outbox, 'b-big.bin'), Buffer.alloc(1001));
    for (const n of ['c1', 'c2', 'c3']) writeFileSync(join(w.outbox, `${n}.txt`), n);
    const snap = (await w.take({ maxFiles: 2, maxFileBytes: 1000 }))!;
    assert.deepEqual(snap.files.map((f) => f.name), ['c1.txt', 'c2.txt']);
    const why = Object.fromEntries(snap.skipped.map((s) => [s.entry, s.reason]));
    assert.equal(why['a-empty.txt'], 'empty');
    assert.match(why['b-big.bin']!, /over the limit of 1 KiB a file \(limits.outbox_bytes\)/);
    assert.match(why['c3.txt']!, /over the limit of 2 files a turn \(limits.outbox_files\)/);
    await settleOutbox(snap, { sent: [], skipped: [] });
    const lower = (await w.take({ maxFiles: 10, maxFileBytes: 1000, platform: { maxFileBytes: 1, name: 'Discord' } }))!;
    assert.match(lower.skipped.find((s) => s.entry === 'c1.txt')?.reason ?? '', /over Discord's limit of 1 KiB here/);
  });

  it('names: made safe for every platform and unique in the turn; shown printable in the reply', async () => {
    const w = await world();
    writeFileSync(join(w.outbox, 'résumé <!channel>.png'), PNG);
    writeFileSync(join(w.outbox, 'résumé__!channel_.png'), PNG);
    writeFileSync(join(w.outbox, 'bad\nname`@here`.txt'), Buffer.alloc(2000));
    const snap = (await w.take())!;
    assert.deepEqual(snap.files.map((f) => f.name).sort(), ['resume_channel_-2.png', 'resume_channel_.png']);
    assert.equal(snap.skipped[0]!.shown, 'bad?name??here?.txt');
    assert.equal(safeFileName('..'), 'file');
    assert.equal(safeFileName('.env'), 'env');
    assert.equal(safeFileName(`${'x'.repeat(300)}.png`).length, 100);
    assert.match(safeFileName(`${'x'.repeat(300)}.png`), /\.png$/);
  });

  it('a reply names an entry printably: no control, format (bidi, zero-width) or line-separator character, no markup', async () => {
    const w = await world();
    for (const n of ['a\u202egnp.exe', 'b\u200b@everyone', 'c\u0085\u2028d', 'e<!channel>']) symlinkSync('/etc/passwd', join(w.outbox, n));
    const shown = (await w.take())!.skipped.map((x) => x.shown);
    assert.deepEqual(shown, ['a?gnp.exe', 'b??everyone', 'c??d', 'e?!channel?']);
  });

  it('a read that fails names no entry (the reply shows the safe name): a swapped file named to ping is refused by reason alone', async () => {
    const w = await world();
    const entry = 'x: <!channel> @everyone.txt';
    writeFileSync(join(w.outbox, entry), 'first');
    const snap = (await w.take())!;
    rmSync(join(snap.staged, entry));
    await assert.rejects(readOutboxFile(snap, snap.files[0]!), (e: Error) => e.message === 'could not be opened (ENOENT)');
    writeFileSync(join(snap.staged, entry), 'a longer file');
    await assert.rejects(readOutboxFile(snap, snap.files[0]!), (e: Error) => e.message === 'changed since the outbox was read');
  });

  it(`thousands of entries: ${MAX_ENTRIES} are looked at a turn, the rest stay in outbox/ for the next (counted in the reply)`, async () => {
    const w = await world();
    for (let i = 0; i < MAX_ENTRIES + 5; i++) writeFileSync(join(w.outbox, `f${String(i).padStart(5, '0')}.txt`), 'x');
    const snap = (await w.take())!;
    assert.equal(snap.files.length, LIMITS.maxFiles);
    assert.equal(snap.skipped.length, MAX_ENTRIES - LIMITS.maxFiles + 1);
    assert.deepEqual(snap.skipped[0], { entry: '', shown: '5 more entries', reason: `over ${MAX_ENTRIES} a turn: left in outbox/ for the next turn` });
    await settleOutbox(snap, { sent: snap.files.map((f) => f.entry), skipped: snap.skipped.map((x) => x.entry) });
    assert.deepEqual(readdirSync(w.outbox).filter((n) => n.endsWith('.txt')), ['f01000.txt', 'f01001.txt', 'f01002.txt', 'f01003.txt', 'f01004.txt']);
    const next = (await w.take())!;
    assert.deepEqual(next.files.map((f) => f.entry), ['f01000.txt', 'f01001.txt', 'f01002.txt', 'f01003.txt', 'f01004.txt']);
  });

  it('a file swapped after the scan (for a link, a hard link to a secret, a pipe, a longer file) is refused when read', async () => {
    const w = await world();
    for (const n of ['a', 'b', 'c', 'd']) writeFileSync(join(w.outbox, `${n}.txt`), 'first');
    const snap = (await w.take())!;
    const [a, b, c, d] = snap.files;
    const swap = (entry: string, put: (path: string) => void) => {
      rmSync(join(snap.staged, entry));
      put(join(snap.staged, entry));
    };
    swap('a.txt', (p) => symlinkSync(join(w.secrets, 'token.txt'), p));
    await assert.rejects(readOutboxFile(snap, a!), /ELOOP/);
    swap('b.txt', (p) => linkSync(join(w.secrets, 'token.txt'), p));
    await assert.rejects(readOutboxFile(snap, b!), /other hard links/);
    swap('c.txt', (p) => execFileSync('mkfifo', [p]));
    await assert.rejects(readOutboxFile(snap, c!), /not a regular file/);
    swap('d.txt', (p) => writeFileSync(p, 'a longer file'));
    await assert.rejects(readOutboxFile(snap, d!), /changed since/);
  });

  it('with run_as, a file that is not the agent\'s own is refused', async () => {
    const w = await world();
    writeFileSync(join(w.outbox, 'mine.txt'), 'x');
    const snap = (await w.take({ ...LIMITS, ownerUid: process.getuid!() + 1 }))!;
    assert.match(snap.skipped[0]!.reason, /not the agent's own/);
  });

  it('settling never overwrites: a second plot.png goes to sent/ under a free name; a file named sent/ moves aside', async () => {
    const w = await world();
    writeFileSync(join(w.outbox, 'plot.png'), PNG);
    let snap = (await w.take())!;
    await settleOutbox(snap, { sent: ['plot.png'], skipped: [] });
    writeFileSync(join(w.outbox, 'plot.png'), Buffer.concat([PNG, PNG]));
    rmSync(join(w.outbox, 'sent'), { recursive: true });
    writeFileSync(join(w.outbox, 'sent'), 'a file in the way');
    snap = (await w.take())!;
    assert.deepEqual(snap.files.map((f) => f.entry).sort((x, y) => x.localeCompare(y)), ['plot.png', snap.files.find((f) => f.entry.startsWith('sent-'))!.entry]);
    await settleOutbox(snap, { sent: snap.files.map((f) => f.entry), skipped: [] });
    assert.ok(lstatSync(join(w.outbox, 'sent')).isDirectory());
    writeFileSync(join(w.outbox, 'plot.png'), PNG);
    snap = (await w.take())!;
    await settleOutbox(snap, { sent: ['plot.png'], skipped: [] });
    writeFileSync(join(w.outbox, 'plot.png'), PNG);
    snap = (await w.take())!;
    await settleOutbox(snap, { sent: ['plot.png'], skipped: [] });
    assert.ok(readdirSync(join(w.outbox, 'sent')).includes('plot-2.png'), readdirSync(join(w.outbox, 'sent')).join());
  });

  const user = plainUser();
  const asRoot = process.getuid?.() === 0 ? (typeof user === 'string' ? user : false) : 'run_as needs the test to run as root';
  it('with run_as, a process of the agent\'s that outlived the turn with its cwd in the outbox can change nothing there once it is taken, and gets it back after', { skip: asRoot }, async () => {
    const u = user as { uid: number; gid: number };
    const w = await world();
    chmodSync(w.root, 0o755);
    chownSync(w.conv, u.uid, u.gid);
    rmSync(w.outbox, { recursive: true });
    await prepareOutbox(w.conv, u);
    writeFileSync(join(w.outbox, 'tool.sh'), '#!/bin/sh\n');
    chownSync(join(w.outbox, 'tool.sh'), u.uid, u.gid);
    const victim = join(w.root, 'victim');
    mkdirSync(victim);
    // The survivor (unboxed, setsid): on each line it tries, in its cwd, to plant `sent` as a link
    // to a directory of root's (settling would then move the agent's file there, as root), to add
    // an entry and to swap one.
    const survivor = spawn(process.execPath, ['-e', `
      const fs = require('fs');
      const tryIt = (f) => { try { f(); return 'ok'; } catch (e) { return e.code; } };
      require('readline').createInterface({ input: process.stdin }).on('line', () => {
        console.log(JSON.stringify({ link: tryIt(() => fs.symlinkSync(${JSON.stringify(victim)}, 'sent')), add: tryIt(() => fs.writeFileSync('late.txt', 'x')), swap: tryIt(() => fs.renameSync('tool.sh', 'tool2.sh')) }));
      });`], { cwd: w.outbox, uid: u.uid, gid: u.gid, stdio: ['pipe', 'pipe', 'inherit'] });
    const answer = async () => {
      survivor.stdin!.write('try\n');
      const [line] = await once(survivor.stdout!, 'data') as [Buffer];
      return JSON.parse(String(line)) as Record<string, string>;
    };
    try {
      const snap = (await w.take({ ...LIMITS, ownerUid: u.uid }))!;
      assert.deepEqual(snap.files.map((f) => f.entry), ['tool.sh']);
      assert.deepEqual(await answer(), { link: 'EACCES', add: 'EACCES', swap: 'EACCES' }, 'the staged outbox is the bridge\'s');
      assert.equal(await settleOutbox(snap, { sent: ['tool.sh'], skipped: [] }), true);
      assert.deepEqual(readdirSync(victim), [], 'nothing moved out of the outbox');
      assert.equal(lstatSync(w.outbox).uid, u.uid, 'back, the agent\'s again');
      assert.deepEqual(readdirSync(join(w.outbox, 'sent')), ['tool.sh']);
      assert.equal((await answer()).add, 'ok', 'the agent writes its outbox again');
    } finally {
      survivor.kill();
    }
  });

  it('with run_as, an outbox a crash left in staging (the bridge\'s by then) goes back the agent\'s', { skip: asRoot }, async () => {
    const u = user as { uid: number; gid: number };
    const w = await world();
    chownSync(w.conv, u.uid, u.gid);
    rmSync(w.outbox, { recursive: true });
    await prepareOutbox(w.conv, u);
    writeFileSync(join(w.outbox, 'a.txt'), 'x');
    chownSync(join(w.outbox, 'a.txt'), u.uid, u.gid);
    const snap = (await w.take({ ...LIMITS, ownerUid: u.uid }))!;
    assert.equal(lstatSync(snap.staged).uid, process.getuid!());
    assert.deepEqual((await returnStaged(w.root, new Set())).returned, [snap.staged]);
    assert.equal(lstatSync(w.outbox).uid, u.uid);
  });

  it('an outbox that cannot go back (one took its place) stays in staging, whole', async () => {
    const w = await world();
    writeFileSync(join(w.outbox, 'x.txt'), 'x');
    const snap = (await w.take())!;
    mkdirSync(w.outbox);
    writeFileSync(join(w.outbox, 'new.txt'), 'new');
    assert.equal(await settleOutbox(snap, { sent: ['x.txt'], skipped: [] }), false);
    assert.ok(existsSync(join(snap.staged, 'sent', 'x.txt')));
    assert.equal(conversationOfStaged(snap.staged.split('/').pop()!), 'conv-0123456789abcdef');
  });
});
