/**
 * Access grants on the bridge state: committed when `add` resolves (another connection reads it
 * at once), a pairing code redeemed once, a failing store reads as "not granted".
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import {openGrants, createState } from '../../../src/state/index.js';
import { createLogger, silentLogger } from '../../../src/log.js';

const root = mkdtempSync(join(tmpdir(), 'tb-grants-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(root, `d${++n}`);

function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({ write(chunk, _enc, cb) { lines.push(JSON.parse(String(chunk))); cb(); } });
  return { logger: createLogger({ level: 'info', pretty: false, destination }), lines };
}

describe('access grants on the bridge state', () => {
  it('a grant is committed when add resolves: another connection reads it before the writer closes', async () => {
    const dataDir = freshDir();
    const writer = openGrants({ dataDir }, silentLogger);
    assert.equal(await writer.add('slack:U0NEW', { platform: 'cli', id: 'test' }), 'added');
    // A second process's view (its own SQLite connection), while the writer is still open.
    const reader = createState({ dataDir }, silentLogger);
    const grants = reader.grants;
    assert.equal(await grants.hasAny(['discord:1', 'slack:U0NEW']), true);
    assert.equal(await writer.remove('slack:U0NEW', { platform: 'cli', id: 'test' }), true);
    assert.equal(await grants.hasAny(['slack:U0NEW']), false);
    await writer.close();
    await reader.close();
  });

  it('a pairing code is redeemed once, even by two redeemers at the same time', async () => {
    const dataDir = freshDir();
    const bridge = openGrants({ dataDir }, silentLogger);
    const [cliA, cliB] = [openGrants({ dataDir }, silentLogger), openGrants({ dataDir }, silentLogger)];
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
    const grants = openGrants({ dataDir }, logger);
    assert.equal(await grants.add('slack:U1', { platform: 'cli', id: 'test' }), 'failed');
    assert.equal(await grants.hasAny(['slack:U1']), false);
    assert.equal(await grants.pairingCode('slack:U1'), undefined);
    assert.ok(lines.some((l) => /could not be opened; treating the person as not granted/.test(String(l.msg))), JSON.stringify(lines));
    await grants.close();
  });
});
