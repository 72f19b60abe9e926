/**
 * REDIS_URL selects Redis: the same store contract against a real redis-server on loopback
 * (Debian's redis-server; .ci/run installs it when missing).
 */
import { createAccessGrants, createSessionStore, createState } from '../../../src/state/index.js';
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../../src/log.js';
import { startRedisServer, type RedisServer } from '../../fakes/redis-server.js';
import { conv, makeConfig } from './helpers.js';

let server: RedisServer | undefined;
let url = '';

before(async () => {
  server = await startRedisServer();
  url = server.url;
});

after(() => {
  server?.stop();
});

describe('access grants on Redis', () => {
  it('a grant made by one process (turnbridge allow) is seen by every replica, and its removal too', async () => {
    const config = makeConfig({ redisUrl: url });
    const cli = createAccessGrants(config, silentLogger);
    const replica = createAccessGrants(config, silentLogger);
    assert.equal(await replica.hasAny(['slack:U0NEW']), false);
    assert.equal(await cli.add('slack:U0NEW', { platform: 'cli', id: 'test' }), 'added');
    assert.equal(await replica.hasAny(['discord:1', 'slack:U0NEW']), true);
    assert.deepEqual((await replica.list())?.map((g) => [g.identity, g.by, g.via]), [['slack:U0NEW', 'cli:test', 'cli']], 'turnbridge allow --list on Redis');
    assert.equal(await cli.remove('slack:U0NEW', { platform: 'cli', id: 'test' }), true);
    assert.equal(await replica.hasAny(['slack:U0NEW']), false);
    await cli.close();
    await replica.close();
  });
});

describe('session store on Redis', () => {
  it('keeps, resets and shares sessions across store instances (replicas)', async () => {
    const config = makeConfig({ redisUrl: url });
    const sa = createState(config, silentLogger);
    const sb = createState(config, silentLogger);
    const a = createSessionStore(sa, silentLogger, { now: () => 42 });
    const b = createSessionStore(sb, silentLogger);
    assert.equal(await a.set(conv('C1', '1700.1'), 'slack', { sessionId: 'abc', profile: '/p.yaml' }), true);
    assert.deepEqual(await b.get(conv('C1', '1700.1'), 'slack'), { session_id: 'abc', profile: '/p.yaml', updated_at: 42 }, 'another replica sees it');
    assert.equal(await b.get(conv('C1', '1700.1'), 'discord'), undefined, 'the platform is part of the key');
    assert.equal(await b.delete(conv('C1', '1700.1'), 'slack'), true);
    assert.equal(await a.get(conv('C1', '1700.1'), 'slack'), undefined, 'a reset is seen by every replica');
    await sa.close();
    await sb.close();
  });

  it('a Redis that goes away never fails the turn: reads as no session, logged', async () => {
    const config = makeConfig({ redisUrl: 'redis://127.0.0.1:9' });
    const st = createState(config, silentLogger);
    const s = createSessionStore(st, silentLogger, { opTimeoutMs: 300 });
    assert.equal(await s.get(conv('C9'), 'slack'), undefined);
    assert.equal(await s.set(conv('C9'), 'slack', { sessionId: 'x', profile: '/p' }), false);
    await st.close();
  });
});
