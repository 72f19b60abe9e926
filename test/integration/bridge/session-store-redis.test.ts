/**
 * REDIS_URL selects Redis: the same store contract against a real redis-server on loopback
 * (Debian's redis-server; .ci/run installs it when missing).
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { conversationKey, createState, openGrants } from '../../../src/state/index.js';
import { silentLogger } from '../../../src/log.js';
import { startRedisServer, type RedisServer } from '../../fakes/redis-server.js';
import { conv, makeConfig } from '../../unit/bridge/helpers.js';

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
    const cli = openGrants(config, silentLogger);
    const replica = openGrants(config, silentLogger);
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
    const sa = createState(config, silentLogger, { now: () => 42 });
    const sb = createState(config, silentLogger);
    const [a, b] = [sa.sessions, sb.sessions];
    assert.equal(await a.set(conversationKey('slack', conv('C1', '1700.1')), { sessionId: 'abc', profile: '/p.yaml' }), true);
    assert.deepEqual(await b.get(conversationKey('slack', conv('C1', '1700.1'))), { session_id: 'abc', profile: '/p.yaml', updated_at: 42 }, 'another replica sees it');
    assert.equal(await b.get(conversationKey('discord', conv('C1', '1700.1'))), undefined, 'the platform is part of the key');
    assert.equal(await b.delete(conversationKey('slack', conv('C1', '1700.1'))), true);
    assert.equal(await a.get(conversationKey('slack', conv('C1', '1700.1'))), undefined, 'a reset is seen by every replica');
    await sa.close();
    await sb.close();
  });

  it('a Redis that goes away never fails the turn: reads as no session, logged', async () => {
    const config = makeConfig({ redisUrl: 'redis://127.0.0.1:9' });
    const st = createState(config, silentLogger, { opTimeoutMs: 300 });
    const s = st.sessions;
    assert.equal(await s.get(conversationKey('slack', conv('C9'))), undefined);
    assert.equal(await s.set(conversationKey('slack', conv('C9')), { sessionId: 'x', profile: '/p' }), false);
    await st.close();
  });
});
