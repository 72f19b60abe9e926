import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Keyv from 'keyv';
import pino from 'pino';
import { createSessionStore } from '../../../src/bridge/index.js';
import { silentLogger } from '../../../src/log.js';
import { conv, makeConfig } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { logger, lines };
}

describe('session store', () => {
  it('keeps sessions in the embedded file database across a restart', async () => {
    const config = makeConfig({ dataDir: join(dir, 'data') });
    const s1 = createSessionStore(config, silentLogger, { now: () => 1234, writeDelayMs: 5 });
    assert.equal(await s1.set(conv('C1', '1700.1'), 'slack', { sessionId: 'abc', profile: '/p.yaml' }), true);
    assert.equal(await s1.set(conv('C2'), 'discord', { sessionId: 'def', profile: '/q.yaml' }), true);
    await s1.close();
    assert.match(readFileSync(join(dir, 'data', 'sessions.json'), 'utf8'), /abc/);

    const s2 = createSessionStore(config, silentLogger, { writeDelayMs: 5 });
    assert.deepEqual(await s2.get(conv('C1', '1700.1'), 'slack'), { session_id: 'abc', profile: '/p.yaml', updated_at: 1234 });
    assert.equal((await s2.get(conv('C2'), 'discord'))?.session_id, 'def');
    assert.equal(await s2.get(conv('C1', '1700.1'), 'discord'), undefined, 'the platform is part of the key');
    assert.equal(await s2.get(conv('C1'), 'slack'), undefined, 'the thread is part of the key');
    assert.equal(await s2.delete(conv('C2'), 'discord'), true);
    await s2.close();
    const s3 = createSessionStore(config, silentLogger, { writeDelayMs: 5 });
    assert.equal(await s3.get(conv('C2'), 'discord'), undefined, 'a reset survives the restart too');
    await s3.close();
  });

  it('keys cannot collide through separators in ids', async () => {
    const s = createSessionStore(makeConfig(), silentLogger, { keyv: new Keyv() });
    await s.set({ space: 'a:b', channel: 'c', thread: '' }, 'x', { sessionId: 's1', profile: 'p' });
    assert.equal(await s.get({ space: 'a', channel: 'b:c', thread: '' }, 'x'), undefined);
    await s.close();
  });

  it('a failing backend is logged and reads as "no session"; operations never throw', async () => {
    const { logger, lines } = captureLogger();
    const broken = {
      get: async () => {
        throw new Error('backend down');
      },
      set: async () => {
        throw new Error('backend down');
      },
      delete: async () => {
        throw new Error('backend down');
      },
      clear: async () => {},
      on() {
        return this;
      },
      opts: {},
      namespace: undefined,
    };
    const keyv = new Keyv({ store: broken as never });
    const s = createSessionStore(makeConfig(), logger, { keyv });
    assert.equal(await s.get(conv(), 'test'), undefined);
    assert.equal(await s.set(conv(), 'test', { sessionId: 'x', profile: 'p' }), false);
    assert.equal(await s.delete(conv(), 'test'), false);
    await s.close();
    assert.ok(lines.some((l) => l.level === 50 && /session store/.test(String(l.msg))), 'errors are logged');
  });

  it('a hung backend times out instead of holding the turn', async () => {
    const { logger, lines } = captureLogger();
    const hung = { get: () => new Promise(() => {}), set: () => new Promise(() => {}), delete: async () => true, clear: async () => {}, on() { return this; }, opts: {} };
    const s = createSessionStore(makeConfig(), logger, { keyv: new Keyv({ store: hung as never }), opTimeoutMs: 20 });
    assert.equal(await s.get(conv(), 'test'), undefined);
    assert.ok(lines.some((l) => /took longer than 20 ms/.test(JSON.stringify(l))));
  });

  it('ignores a malformed record', async () => {
    const keyv = new Keyv();
    const s = createSessionStore(makeConfig(), silentLogger, { keyv });
    await keyv.set('test:T1:C1:', { session_id: 42 });
    assert.equal(await s.get(conv(), 'test'), undefined);
  });
});
