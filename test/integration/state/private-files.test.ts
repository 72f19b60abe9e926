/**
 * The bridge's state files are closed from their creation: the data directory 0700 and the
 * SQLite file with its -wal and -shm 0600, stat'ed right after the store opened them, whatever
 * the umask. Tried as the agent's user (run_as, a real process as uid 65534): neither the
 * directory's listing nor the files' bytes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore, ensurePrivateDir, privateDirMode } from '../../../src/state/index.js';

const mode = (p: string) => statSync(p).mode & 0o777;
const isRoot = process.getuid?.() === 0;

function fresh(t: { after(fn: () => void): void }): string {
  const d = mkdtempSync(join(tmpdir(), 'tb-private-'));
  chmodSync(d, 0o755); // a parent anyone may pass through, as a deploy directory is
  t.after(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** Run `code` in a node process as uid:gid; its stdout (JSON) parsed. */
function asUser(uid: number, gid: number, code: string): unknown {
  const r = spawnSync(process.execPath, ['-e', code], { uid, gid, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('with umask 000 the data dir is made 0700 and the database, -wal and -shm 0600 as SQLite creates them', async (t) => {
  const data = join(fresh(t), 'data');
  const old = process.umask(0);
  let store;
  try {
    store = createSqliteStore({ file: join(data, 'turnbridge.sqlite') });
    await store.set('ns', 'k', { v: 1 });
  } finally {
    process.umask(old);
  }
  t.after(() => store.close());
  assert.equal(mode(data), 0o700);
  for (const f of ['turnbridge.sqlite', 'turnbridge.sqlite-wal', 'turnbridge.sqlite-shm']) {
    assert.equal(mode(join(data, f)), 0o600, f);
  }
});

test('files of an older run found readable are tightened when the store opens, and reported', async (t) => {
  const data = join(fresh(t), 'data');
  const file = join(data, 'turnbridge.sqlite');
  const first = createSqliteStore({ file });
  await first.set('ns', 'k', 'queued message text');
  await first.close();
  chmodSync(data, 0o755);
  chmodSync(file, 0o644);
  writeFileSync(`${file}-wal`, '');
  chmodSync(`${file}-wal`, 0o644);
  const told: string[] = [];
  const store = createSqliteStore({ file, onTightened: (p) => told.push(p) });
  t.after(() => store.close());
  assert.deepEqual(told.sort(), [data, file, `${file}-wal`].sort());
  assert.equal(mode(data), 0o700);
  assert.equal(mode(file), 0o600);
  assert.equal(mode(`${file}-wal`), 0o600);
  assert.equal(await store.get('ns', 'k'), 'queued message text', 'the data is kept');
});

test('ensurePrivateDir leaves another user\'s directory alone and says so', { skip: !isRoot && 'needs root (chown)' }, (t) => {
  const d = join(fresh(t), 'theirs');
  mkdirSync(d, { mode: 0o755 });
  chmodSync(d, 0o755);
  chownSync(d, 65534, 65534);
  assert.equal(ensurePrivateDir(d), 'not-ours');
  assert.equal(mode(d), 0o755);
});

test('as the run_as user: the data dir (0710, its group) cannot be listed and the state file cannot be read', { skip: !isRoot && 'needs root (run_as)' }, async (t) => {
  const data = join(fresh(t), 'data');
  const file = join(data, 'turnbridge.sqlite');
  const store = createSqliteStore({ file, dirMode: privateDirMode({ gid: 65534 }) });
  t.after(() => store.close());
  await store.set('grants', 'slack:U0EVE', { by: 'admin' });
  assert.equal(mode(data), 0o710);
  assert.equal(statSync(data).gid, 65534);
  const tried = asUser(65534, 65534, `
    const fs = require('fs');
    const out = {};
    for (const [name, fn] of [['list', () => fs.readdirSync(${JSON.stringify(data)})], ['read', () => fs.readFileSync(${JSON.stringify(file)})], ['wal', () => fs.readFileSync(${JSON.stringify(`${file}-wal`)})], ['write', () => fs.writeFileSync(${JSON.stringify(join(data, 'planted'))}, 'x')]]) {
      try { fn(); out[name] = 'ok'; } catch (e) { out[name] = e.code; }
    }
    console.log(JSON.stringify(out));`);
  assert.deepEqual(tried, { list: 'EACCES', read: 'EACCES', wal: 'EACCES', write: 'EACCES' });
});
