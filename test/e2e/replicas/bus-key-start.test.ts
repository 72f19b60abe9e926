/**
 * `npm start` with REDIS_URL and no TURNBRIDGE_BUS_KEY (or a weak one) refuses to start, and
 * says which variable to set and how to make a key: replicas that talk through Redis unsigned
 * would act on whatever any client of that Redis publishes (test/integration/replicas/bus-forgery.test.ts).
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startRedisServer, type RedisServer } from '../../fakes/redis-server.js';
import { startBridgeChild } from '../crash-child.js';

let redis: RedisServer;
const dirs: string[] = [];
before(async () => {
  redis = await startRedisServer();
});
after(() => {
  redis.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tb-buskey-'));
  dirs.push(dir);
  const child = startBridgeChild({ dataDir: dir, env: { REDIS_URL: redis.url, ...env } });
  const code = await child.exited;
  return { code, output: child.output() };
}

describe('start-up with REDIS_URL and no bus key', () => {
  it('refuses to start, naming TURNBRIDGE_BUS_KEY and how to make one', async () => {
    const { code, output } = await start({});
    assert.notEqual(code, 0, output);
    assert.match(output, /^turnbridge: configuration error: /m);
    assert.match(output, /REDIS_URL is set but TURNBRIDGE_BUS_KEY is not/);
    assert.match(output, /openssl rand -hex 32/);
  });

  it('refuses a key that is too short, without printing it', async () => {
    const { code, output } = await start({ TURNBRIDGE_BUS_KEY: 'hunter2-hunter2' });
    assert.notEqual(code, 0, output);
    assert.match(output, /TURNBRIDGE_BUS_KEY is too short \(15 characters\)/);
    assert.doesNotMatch(output, /hunter2/);
  });
});
