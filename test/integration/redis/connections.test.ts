/**
 * The one owner of a process's Redis connections, against a real redis-server: one health value
 * (connecting, up, degraded) told once per change, back to up when Redis is, and pub/sub that
 * survives an outage, including a subscription asked for while Redis was away.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { silentLogger } from '../../../src/log.js';
import { connectRedis, redactedUrl, type RedisHealth } from '../../../src/redis/index.js';
import { logCapture } from '../../fakes/log-capture.js';
import { freePort, startRedisServer } from '../../fakes/redis-server.js';
import { pollUntil } from '../../e2e/poll-until.js';
import { waitFor } from '../../unit/bridge/helpers.js';

describe('redis connections', () => {
  it('one health value: connecting, up, degraded once when Redis goes, up again when it is back', async (t) => {
    const server = await startRedisServer();
    const cap = logCapture('info');
    const redis = connectRedis(server.url, { logger: cap.logger });
    t.after(() => redis.close());
    const seen: RedisHealth[] = [];
    redis.onHealth((h) => seen.push(h));
    assert.equal(redis.health, 'connecting');
    assert.equal(await redis.ready(), true);
    assert.equal(redis.health, 'up');
    await redis.commands.set('k', 'v');
    server.stop();
    await waitFor(() => redis.health === 'degraded', 'degraded');
    await assert.rejects(redis.commands.get('k'), 'a command fails rather than wait for Redis');
    const back = await startRedisServer(server.port);
    t.after(() => back.stop());
    await waitFor(() => redis.health === 'up', 'up again', 20_000);
    assert.deepEqual(seen, ['up', 'degraded', 'up'], 'each change told once, however many reconnect attempts');
    assert.equal(cap.lines.filter((l) => /redis: unreachable/.test(String(l.msg))).length, 1, 'said once');
  });

  it('pub/sub: one subscriber for every channel; a subscription asked for while Redis is away is made once it is back', async (t) => {
    const port = await freePort();
    const redis = connectRedis(`redis://127.0.0.1:${port}`, { logger: silentLogger });
    t.after(() => redis.close());
    assert.equal(await redis.ready(200), false, 'nothing listens yet');
    const got: string[] = [];
    const subscribed = redis.subscribe('tb:test:a', (m) => got.push(`a:${m}`));
    const server = await startRedisServer(port);
    t.after(() => server.stop());
    await subscribed;
    await redis.subscribe('tb:test:b', (m) => got.push(`b:${m}`));
    await waitFor(() => redis.health === 'up', 'up');
    const other = connectRedis(server.url, { logger: silentLogger });
    t.after(() => other.close());
    // Published until heard: the resubscription on reconnect is not announced.
    await pollUntil(async () => {
      await other.publish('tb:test:a', 'one');
      return got.includes('a:one');
    }, 'the early subscription delivers', 10_000);
    await other.publish('tb:test:b', 'two');
    await waitFor(() => got.includes('b:two'), 'the second channel delivers');
    const drop = (m: string) => got.push(`c:${m}`);
    await redis.subscribe('tb:test:c', drop);
    redis.unsubscribe('tb:test:c', drop);
    await other.publish('tb:test:c', 'gone');
    await other.publish('tb:test:a', 'after');
    await waitFor(() => got.includes('a:after'), 'later messages still arrive');
    assert.ok(!got.includes('c:gone'), 'an unsubscribed handler hears nothing');
  });

  it('a one-shot connection (the doctor) gives up at once on a refused connection; the URL is logged without its password', async () => {
    const port = await freePort();
    const redis = connectRedis(`redis://127.0.0.1:${port}`, { logger: silentLogger, reconnect: false });
    const why = await new Promise<Error | undefined>((resolve) => redis.onHealth((h, err) => h === 'degraded' && resolve(err)));
    assert.match(String(why?.message), /ECONNREFUSED/);
    await redis.close();
    assert.equal(redactedUrl('rediss://tb:secret@redis.example:6380/0'), 'rediss://tb:***@redis.example:6380/0');
  });
});
