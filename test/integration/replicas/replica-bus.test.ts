/**
 * The replica bus on a real redis-server: heartbeats say who is alive, a forwarded click is
 * handled by the one replica that holds it, and nobody holding it answers "not handled".
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { createReplicaBus, type ReplicaBus } from '../../../src/replicas/replica-bus.js';
import { silentLogger } from '../../../src/log.js';
import { startRedisServer, type RedisServer, closeConnections, connectionsTo } from '../../fakes/redis-server.js';
import { testBusKey } from '../../fixtures/bus-key.js';

let server: RedisServer;
const buses: ReplicaBus[] = [];

before(async () => {
  server = await startRedisServer();
});
after(async () => {
  await Promise.all(buses.map((b) => b.close()));
  await closeConnections();
  server.stop();
});

function bus(id: string, prefix: string, heartbeatTtlMs?: number): ReplicaBus {
  const b = createReplicaBus({ redis: connectionsTo(server.url), logger: silentLogger, id, prefix, heartbeatTtlMs, serves: ['slack'], key: testBusKey() });
  buses.push(b);
  return b;
}

/** Subscriptions are asynchronous: probe until the holder answers. */
async function subscribed(from: ReplicaBus): Promise<void> {
  for (let i = 0; i < 100; i++) if ((await from.forward<{ probe: boolean }, string>({ probe: true }, 100)) === 'here') return;
  throw new Error('the replicas never subscribed');
}

describe('replica bus (ioredis pub/sub + heartbeat keys on a real redis-server)', () => {
  it('forwards a click to the replica that holds it and returns what to tell the clicker', async () => {
    const a = bus('A', 'b1');
    const b = bus('B', 'b1');
    const c = bus('C', 'b1');
    const seen: string[] = [];
    b.serve<{ id: string; probe?: boolean }, unknown>(async ({ body, from }) => {
      if (body.probe) return 'here';
      seen.push(`B:${body.id}:${from}`);
      return body.id === 'perm-held-by-B' ? { notes: ['Only @ana can answer this request.'] } : undefined;
    });
    c.serve<{ id: string }, unknown>(async ({ body }) => {
      seen.push(`C:${body.id}`);
      return undefined;
    });
    await subscribed(a);
    const answer = await a.forward({ id: 'perm-held-by-B' });
    assert.deepEqual(answer, { notes: ['Only @ana can answer this request.'] }, "the holder's answer");
    assert.ok(seen.includes('B:perm-held-by-B:A'), 'B handled it, and knew who forwarded it');
    assert.ok(seen.includes('C:perm-held-by-B'), 'C was asked too, and kept quiet');
    const nobody = await a.forward({ id: 'perm-gone' }, 300);
    assert.equal(nobody, undefined, 'nobody holds it: the click has expired');
  });

  it('heartbeats: live replicas are listed; a killed one is gone after its TTL, a closed one at once', async () => {
    const a = bus('A2', 'b2', 300);
    const b = createReplicaBus({ redis: connectionsTo(server.url), logger: silentLogger, id: 'B2', prefix: 'b2', heartbeatTtlMs: 300, key: testBusKey() });
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/replicas/bus-child.ts', server.url, 'K2', 'b2', '300'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => String(d).includes('ready') && resolve());
      child.on('exit', (code) => reject(new Error(`the child replica exited with ${code}`)));
    });
    assert.deepEqual((await a.replicas()).map((r) => r.id).sort(), ['A2', 'B2', 'K2']);
    child.kill('SIGKILL');
    await waitForAsync(async () => !(await a.alive('K2')), 'the killed replica\'s heartbeat to expire');
    assert.equal(await a.alive('B2'), true, 'the others keep beating');
    await b.close();
    assert.equal(await a.alive('B2'), false, 'a replica that leaves on purpose is gone at once');
    assert.deepEqual((await a.replicas()).map((r) => r.id), ['A2']);
  });
});

async function waitForAsync(cond: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
