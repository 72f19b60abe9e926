/**
 * Access grants on the bridge state: committed when `add` resolves (another connection reads it
 * at once), a pairing code redeemed once, and grants kept by older versions in `<data dir>/access`
 * (keyv-file) moved in once at start-up, said in the log, the old directory kept.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import Keyv from 'keyv';
import { KeyvFile } from 'keyv-file';
import { accessGrantsOn, createAccessGrants } from '../../../src/bridge/access-grants.js';
import { createLogger, silentLogger } from '../../../src/log.js';
import { createBridgeState, createSqliteStore, createState, type StateStore } from '../../../src/state/index.js';

const root = mkdtempSync(join(tmpdir(), 'tb-grants-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(root, `d${++n}`);

/** What an older turnbridge left: keyv-file, one file per key, namespace "access". */
async function oldGrantsDir(dataDir: string, grants: Record<string, { by: string; at: number }>, pairing?: string): Promise<void> {
  const old = new Keyv({ store: new KeyvFile({ filename: join(dataDir, 'access'), separatedFile: true, writeDelay: 0 }), namespace: 'access' });
  for (const [id, g] of Object.entries(grants)) await old.set(id, g);
  if (pairing) await old.set(`pair:${pairing}`, { identity: 'slack:U0PAIRED' }, 3_600_000);
  await old.disconnect();
}

function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({ write(chunk, _enc, cb) { lines.push(JSON.parse(String(chunk))); cb(); } });
  return { logger: createLogger({ level: 'info', pretty: false, destination }), lines };
}

describe('access grants on the bridge state', () => {
  it('a grant is committed when add resolves: another connection reads it before the writer closes', async () => {
    const dataDir = freshDir();
    const writer = createAccessGrants({ dataDir }, silentLogger);
    assert.equal(await writer.add('slack:U0NEW', { platform: 'cli', id: 'test' }), 'added');
    // A second process's view (its own SQLite connection), while the writer is still open.
    const reader = createState({ dataDir }, silentLogger);
    const grants = accessGrantsOn(reader, { dataDir }, silentLogger);
    assert.equal(await grants.hasAny(['discord:1', 'slack:U0NEW']), true);
    assert.equal(await writer.remove('slack:U0NEW', { platform: 'cli', id: 'test' }), true);
    assert.equal(await grants.hasAny(['slack:U0NEW']), false);
    await writer.close();
    await reader.close();
  });

  it('a pairing code is redeemed once, even by two redeemers at the same time', async () => {
    const dataDir = freshDir();
    const bridge = createAccessGrants({ dataDir }, silentLogger);
    const [cliA, cliB] = [createAccessGrants({ dataDir }, silentLogger), createAccessGrants({ dataDir }, silentLogger)];
    const code = (await bridge.pairingCode('slack:U0PAIR'))!;
    const got = await Promise.all([cliA.redeem(code.toLowerCase()), cliB.redeem(code)]);
    assert.deepEqual(got.filter(Boolean).map((g) => g!.identity), ['slack:U0PAIR']);
    await Promise.all([bridge.close(), cliA.close(), cliB.close()]);
  });

  it('a store that fails reads as "not granted" and "not saved", with the reason in the log', async () => {
    // A data dir that is a file: the state cannot be opened.
    const parent = freshDir();
    mkdirSync(parent);
    const dataDir = join(parent, 'file');
    writeFileSync(dataDir, 'x');
    const { logger, lines } = capturedLogger();
    const grants = createAccessGrants({ dataDir }, logger);
    assert.equal(await grants.add('slack:U1', { platform: 'cli', id: 'test' }), 'failed');
    assert.equal(await grants.hasAny(['slack:U1']), false);
    assert.equal(await grants.pairingCode('slack:U1'), undefined);
    assert.ok(lines.some((l) => /could not be opened; treating the person as not granted/.test(String(l.msg))), JSON.stringify(lines));
    await grants.close();
  });
});

describe('grants of an older version (keyv-file) move into the state once', () => {
  it('moved at the first start, said in the log, the old directory kept; not again on the next start', async () => {
    const dataDir = freshDir();
    await oldGrantsDir(dataDir, { 'slack:U0OLD': { by: 'cli', at: 1_700_000_000_000 }, 'discord:42': { by: 'slack:U0BOSS', at: 1_700_000_001_000 } }, 'ABCDEF');
    const { logger, lines } = capturedLogger();
    const state = createState({ dataDir }, silentLogger);
    const grants = accessGrantsOn(state, { dataDir }, logger);
    assert.equal(await grants.hasAny(['slack:U0OLD']), true, 'the first check already sees the moved grant');
    assert.equal(await grants.hasAny(['discord:42']), true);
    assert.deepEqual(await state.store.get('kv', 'access:discord:42'), { by: 'slack:U0BOSS', at: 1_700_000_001_000 }, 'who granted it and when are kept');
    assert.equal(await grants.redeem('ABCDEF'), undefined, 'pairing codes are not carried over');
    assert.equal(existsSync(join(dataDir, 'access')), false);
    assert.ok(readdirSync(join(dataDir, 'access.migrated')).length > 0, 'the old files are kept');
    const moved = lines.find((l) => /access grants moved from/.test(String(l.msg)));
    assert.ok(moved && moved.grants === 2, JSON.stringify(lines));
    await grants.close();
    await state.close();

    const again = capturedLogger();
    const state2 = createState({ dataDir }, silentLogger);
    const grants2 = accessGrantsOn(state2, { dataDir }, again.logger);
    assert.equal(await grants2.hasAny(['slack:U0OLD']), true);
    assert.equal(again.lines.some((l) => /access grants/.test(String(l.msg))), false, 'nothing to move the second time');
    await grants2.close();
    await state2.close();
  });

  it('a state that refuses the writes keeps the old directory for the next start', async () => {
    const dataDir = freshDir();
    await oldGrantsDir(dataDir, { 'slack:U0OLD': { by: 'cli', at: 1 } });
    const real = createSqliteStore({ file: join(dataDir, 'turnbridge.sqlite') });
    const full: StateStore = { ...real, set: async () => { throw new Error('SQLITE_FULL: database or disk is full'); } };
    const { logger, lines } = capturedLogger();
    const grants = accessGrantsOn(createBridgeState(full), { dataDir }, logger);
    assert.equal(await grants.hasAny(['slack:U0OLD']), false);
    assert.ok(existsSync(join(dataDir, 'access')), 'kept where it was');
    assert.ok(lines.some((l) => /could not be moved into the bridge state; they are kept there/.test(String(l.msg))), JSON.stringify(lines));
    await grants.close();
    await real.close();
    // The next start (the disk has room again) moves them.
    const state = createState({ dataDir }, silentLogger);
    const retried = accessGrantsOn(state, { dataDir }, silentLogger);
    assert.equal(await retried.hasAny(['slack:U0OLD']), true);
    await state.close();
  });
});
