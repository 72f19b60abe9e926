import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { silentLogger } from '../../../src/log.js';
import { conversationKey, createState, openState, type StateStore } from '../../../src/state/index.js';
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
    const st1 = createState(config, silentLogger, { now: () => 1234 });
    const s1 = st1.sessions;
    assert.equal(await s1.set(conversationKey('slack', conv('C1', '1700.1')), { sessionId: 'abc', profile: '/p.yaml' }), true);
    assert.equal(await s1.set(conversationKey('discord', conv('C2')), { sessionId: 'def', profile: '/q.yaml' }), true);
    // No close: what set() resolved is on disk already (a kill -9 here loses nothing).
    const st2 = createState(config, silentLogger);
    const s2 = st2.sessions;
    assert.deepEqual(await s2.get(conversationKey('slack', conv('C1', '1700.1'))), { session_id: 'abc', profile: '/p.yaml', updated_at: 1234 });
    assert.equal((await s2.get(conversationKey('discord', conv('C2'))))?.session_id, 'def');
    assert.equal(await s2.get(conversationKey('discord', conv('C1', '1700.1'))), undefined, 'the platform is part of the key');
    assert.equal(await s2.get(conversationKey('slack', conv('C1'))), undefined, 'the thread is part of the key');
    assert.equal(await s2.delete(conversationKey('discord', conv('C2'))), true);
    await st1.close();
    await st2.close();
    const st3 = createState(config, silentLogger);
    const s3 = st3.sessions;
    assert.equal(await s3.get(conversationKey('discord', conv('C2'))), undefined, 'a reset survives the restart too');
    await st3.close();
  });

  it('keys cannot collide through separators in ids', async () => {
    const s = memoryState().sessions;
    await s.set(conversationKey('x', { space: 'a:b', channel: 'c', thread: '' }), { sessionId: 's1', profile: 'p' });
    assert.equal(await s.get(conversationKey('x', { space: 'a', channel: 'b:c', thread: '' })), undefined);
  });

  const failing = (how: () => Promise<never>): StateStore => ({
    backend: 'memory', get: how, set: how, setIfNotExists: how, setIfNoneExist: how, delete: how, entries: how, push: how, items: how, removeItem: how, lists: how, write: how, close: async () => {},
  });

  it('a failing backend is logged and reads as "no session"; operations never throw', async () => {
    const { logger, lines } = captureLogger();
    const st = openState(failing(async () => { throw new Error('backend down'); }), { logger });
    const s = st.sessions;
    assert.equal(await s.get(conversationKey('test', conv())), undefined);
    assert.equal(await s.set(conversationKey('test', conv()), { sessionId: 'x', profile: 'p' }), false);
    assert.equal(await s.delete(conversationKey('test', conv())), false);
    await st.idle();
    assert.ok(lines.some((l) => l.level === 50 && /store failed/.test(String(l.msg))), 'errors are logged');
  });

  it('a hung backend times out instead of holding the turn', async () => {
    const { logger, lines } = captureLogger();
    const s = openState(failing(() => new Promise<never>(() => {})), { logger, opTimeoutMs: 20 }).sessions;
    assert.equal(await s.get(conversationKey('test', conv())), undefined);
    assert.ok(lines.some((l) => /took longer than 20 ms/.test(JSON.stringify(l))));
  });

  it('ignores a malformed record', async () => {
    const st = memoryState();
    const s = st.sessions;
    await st.store.set('session', 'test:T1:C1:', { session_id: 42 });
    assert.equal(await s.get(conversationKey('test', conv())), undefined);
  });
});
