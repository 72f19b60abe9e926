import { createBridgeState, createSessionStore, createState, type StateStore } from '../../../src/state/index.js';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { silentLogger } from '../../../src/log.js';
import { conv, memoryState } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { logger, lines };
}

describe('session store', () => {
  it('keeps sessions in the embedded SQLite database across a restart', async () => {
    const config = { dataDir: join(dir, 'data') };
    const st1 = createState(config, silentLogger);
    const s1 = createSessionStore(st1, silentLogger, { now: () => 1234 });
    assert.equal(await s1.set(conv('C1', '1700.1'), 'slack', { sessionId: 'abc', profile: '/p.yaml' }), true);
    assert.equal(await s1.set(conv('C2'), 'discord', { sessionId: 'def', profile: '/q.yaml' }), true);
    // No close: what set() resolved is on disk already (a kill -9 here loses nothing).
    const st2 = createState(config, silentLogger);
    const s2 = createSessionStore(st2, silentLogger);
    assert.deepEqual(await s2.get(conv('C1', '1700.1'), 'slack'), { session_id: 'abc', profile: '/p.yaml', updated_at: 1234 });
    assert.equal((await s2.get(conv('C2'), 'discord'))?.session_id, 'def');
    assert.equal(await s2.get(conv('C1', '1700.1'), 'discord'), undefined, 'the platform is part of the key');
    assert.equal(await s2.get(conv('C1'), 'slack'), undefined, 'the thread is part of the key');
    assert.equal(await s2.delete(conv('C2'), 'discord'), true);
    await st1.close();
    await st2.close();
    const st3 = createState(config, silentLogger);
    const s3 = createSessionStore(st3, silentLogger);
    assert.equal(await s3.get(conv('C2'), 'discord'), undefined, 'a reset survives the restart too');
    await st3.close();
  });

  it('keys cannot collide through separators in ids', async () => {
    const s = createSessionStore(memoryState(), silentLogger);
    await s.set({ space: 'a:b', channel: 'c', thread: '' }, 'x', { sessionId: 's1', profile: 'p' });
    assert.equal(await s.get({ space: 'a', channel: 'b:c', thread: '' }, 'x'), undefined);
  });

  const failing = (how: () => Promise<never>): StateStore => ({
    backend: 'sqlite', get: how, set: how, setIfNotExists: how, setIfNoneExist: how, delete: how, entries: how, push: how, items: how, removeItem: how, lists: how, write: how, close: async () => {},
  });

  it('a failing backend is logged and reads as "no session"; operations never throw', async () => {
    const { logger, lines } = captureLogger();
    const s = createSessionStore(createBridgeState(failing(async () => { throw new Error('backend down'); })), logger);
    assert.equal(await s.get(conv(), 'test'), undefined);
    assert.equal(await s.set(conv(), 'test', { sessionId: 'x', profile: 'p' }), false);
    assert.equal(await s.delete(conv(), 'test'), false);
    await s.close();
    assert.ok(lines.some((l) => l.level === 50 && /store failed/.test(String(l.msg))), 'errors are logged');
  });

  it('a hung backend times out instead of holding the turn', async () => {
    const { logger, lines } = captureLogger();
    const s = createSessionStore(createBridgeState(failing(() => new Promise<never>(() => {}))), logger, { opTimeoutMs: 20 });
    assert.equal(await s.get(conv(), 'test'), undefined);
    assert.ok(lines.some((l) => /took longer than 20 ms/.test(JSON.stringify(l))));
  });

  it('ignores a malformed record', async () => {
    const st = memoryState();
    const s = createSessionStore(st, silentLogger);
    await st.store.set('session', 'test:T1:C1:', { session_id: 42 });
    assert.equal(await s.get(conv(), 'test'), undefined);
  });
});
