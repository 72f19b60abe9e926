/**
 * Takeover on a real redis-server: a departed replica (heartbeat gone) is taken over by exactly
 * one of the survivors sweeping at once, is forgotten once nothing is left, and a replica that
 * comes back with the same id waits for the taker before its own recovery.
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { createReplicaBus, type ReplicaBus } from '../../../src/replicas/replica-bus.js';
import { createTakeover, type Takeover } from '../../../src/replicas/takeover.js';
import { silentLogger } from '../../../src/log.js';
import { startRedisServer, type RedisServer, closeConnections, connectionsTo } from '../../fakes/redis-server.js';
import { testBusKey } from '../../fixtures/bus-key.js';

let server: RedisServer;
const open: Array<ReplicaBus | Takeover> = [];

before(async () => {
  server = await startRedisServer();
});
after(async () => {
  for (const o of open.reverse()) await o.close();
  await closeConnections();
  server.stop();
});

function bus(id: string, prefix: string): ReplicaBus {
  const b = createReplicaBus({ redis: connectionsTo(server.url), logger: silentLogger, id, prefix, heartbeatTtlMs: 60_000, key: testBusKey() });
  open.push(b);
  return b;
}

describe('takeover (redis-semaphore mutex per departed replica)', () => {
  it('exactly one of three survivors sweeping at once takes a departed replica over, then it is forgotten', async () => {
    const gone = bus('G', 't1');
    assert.equal(await gone.ready(), true);
    const calls: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const survivors = ['A', 'B', 'C'].map((id) => {
      const b = bus(id, 't1');
      const t = createTakeover({
        bus: b, redis: connectionsTo(server.url), logger: silentLogger, prefix: 't1',
        recover: async (holder) => {
          calls.push(`${id}:${holder}`);
          await slow;
          return { left: 0 };
        },
      });
      open.push(t);
      return { b, t };
    });
    for (const { b } of survivors) assert.equal(await b.ready(), true);
    assert.deepEqual(await survivors[0]!.b.departed(), [], 'nobody departed yet');
    await gone.close(); // its heartbeat goes at once
    assert.deepEqual(await survivors[0]!.b.departed(), ['G']);
    let settled = 0;
    const sweeps = survivors.map(({ t }) => t.sweep().finally(() => settled++));
    // The two that did not get the claim give up at once; the taker is still at it.
    while (settled < 2) await new Promise((r) => setImmediate(r));
    assert.equal(calls.length, 1);
    release();
    const taken = await Promise.all(sweeps);
    assert.equal(calls.length, 1, `one taker: ${calls.join(', ')}`);
    assert.equal(taken.flat().length, 1);
    assert.deepEqual(await survivors[1]!.b.departed(), [], 'forgotten once nothing was left');
    assert.deepEqual((await Promise.all(survivors.map(({ t }) => t.sweep()))).flat(), [], 'a later sweep finds nothing');
  });

  it('something left: the replica stays departed and the next sweep tries again; a replica back with its id is not taken over', async () => {
    const gone = bus('H', 't2');
    await gone.ready();
    const a = bus('A', 't2');
    await a.ready();
    let left = 1;
    const calls: string[] = [];
    const t = createTakeover({ bus: a, redis: connectionsTo(server.url), logger: silentLogger, prefix: 't2', recover: async (h) => (calls.push(h), { left }) });
    open.push(t);
    await gone.close();
    assert.deepEqual(await t.sweep(), ['H']);
    assert.deepEqual(await a.departed(), ['H'], 'still departed: one record was left');
    left = 0;
    const back = bus('H', 't2');
    await back.ready();
    assert.deepEqual(await t.sweep(), [], 'alive again: its own recovery handles it');
    assert.deepEqual(calls, ['H']);
  });

  it('own recovery waits while a taker holds the claim', async () => {
    const gone = bus('K', 't3');
    await gone.ready();
    const a = bus('A', 't3');
    await a.ready();
    const order: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const taker = createTakeover({ bus: a, redis: connectionsTo(server.url), logger: silentLogger, prefix: 't3', recover: async () => {
      order.push('taker starts');
      await slow;
      order.push('taker done');
      return { left: 0 };
    } });
    open.push(taker);
    await gone.close();
    const sweeping = taker.sweep();
    while (order.length === 0) await new Promise((r) => setTimeout(r, 10));
    // K comes back (a new process with the same id) while the taker works.
    const back = bus('K', 't3');
    const self = createTakeover({ bus: back, redis: connectionsTo(server.url), logger: silentLogger, prefix: 't3', recover: async () => ({ left: 0 }) });
    open.push(self);
    const own = self.own(async () => void order.push('own recovery'));
    // A few Redis round trips: its claim attempts have reached Redis by then, and failed.
    for (let i = 0; i < 5; i++) await back.alive('K');
    assert.deepEqual(order, ['taker starts'], 'own recovery has not started');
    release();
    await Promise.all([sweeping, own]);
    assert.deepEqual(order, ['taker starts', 'taker done', 'own recovery']);
  });
});
