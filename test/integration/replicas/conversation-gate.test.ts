/**
 * The conversation gate on a real redis-server: turns of one conversation taken by three
 * replicas run one at a time in the order Redis saw them arrive; other conversations are not
 * held up; a turn stopped while waiting does not block; a dead holder is skipped.
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { createConversationGate, type ConversationGate } from '../../../src/replicas/conversation-gate.js';
import { silentLogger } from '../../../src/log.js';
import { startRedisServer, type RedisServer, closeConnections, connectionsTo } from '../../fakes/redis-server.js';

let server: RedisServer;
const gates: ConversationGate[] = [];
const dead = new Set<string>();
before(async () => {
  server = await startRedisServer();
});
after(async () => {
  await Promise.all(gates.map((g) => g.close()));
  await closeConnections();
  server.stop();
});

function gate(prefix: string): ConversationGate {
  const g = createConversationGate({ redis: connectionsTo(server.url), logger: silentLogger, prefix, alive: async (id) => !dead.has(id), pollMs: 50 });
  gates.push(g);
  return g;
}

describe('conversation gate (ticket lock on a real redis-server)', () => {
  it('three replicas, one conversation: one turn at a time, in arrival order', async () => {
    const replicas = [gate('g1'), gate('g1'), gate('g1')];
    const tickets = [];
    for (let i = 0; i < 9; i++) tickets.push(await replicas[i % 3]!.take('slack:T1:C1:1700.1', `R${i % 3}`));
    assert.deepEqual(tickets.map((t) => t.number), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(tickets.map((t) => t.ahead), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const log: string[] = [];
    let inside = 0;
    let most = 0;
    // Enter in reverse order of arrival: the gate, not the calls, decides who runs.
    await Promise.all([...tickets].reverse().map(async (t) => {
      const g = replicas[(t.number - 1) % 3]!;
      await g.enter(t);
      inside++;
      most = Math.max(most, inside);
      log.push(`start ${t.number}`);
      await new Promise((r) => setImmediate(r));
      log.push(`end ${t.number}`);
      inside--;
      await g.leave(t);
    }));
    assert.equal(most, 1, 'never two turns of the conversation at once');
    assert.deepEqual(log, tickets.flatMap((t) => [`start ${t.number}`, `end ${t.number}`]));
  });

  it('another conversation is not held up, and a turn stopped while waiting does not block the next', async () => {
    const g = gate('g2');
    const first = await g.take('A', 'R0');
    const stopped = await g.take('A', 'R0');
    const third = await g.take('A', 'R0');
    const other = await g.take('B', 'R0');
    await g.enter(first);
    await g.enter(other); // B's first turn runs while A's is running
    await g.leave(stopped); // stopped before its turn came
    let thirdIn = false;
    const waiting = g.enter(third).then(() => (thirdIn = true));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(thirdIn, false, 'the third waits for the first');
    await g.leave(first);
    await waiting;
    assert.equal(thirdIn, true, 'the stopped ticket was skipped');
    await g.leave(third);
    await g.leave(other);
  });

  it('a replica that died while serving a conversation is skipped once its heartbeat is gone', async () => {
    const a = gate('g3');
    const b = gate('g3');
    const held = await a.take('C', 'RA');
    await a.enter(held); // RA runs the turn, then dies without leaving
    const next = await b.take('C', 'RB');
    const abort = new AbortController();
    let entered = false;
    const waiting = b.enter(next, abort.signal).then(() => (entered = true));
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(entered, false, 'RA is alive: RB waits');
    dead.add('RA');
    await waiting;
    assert.equal(entered, true, 'RB moved on once RA was gone');
    await b.leave(next);
  });

  it('waiting ends when the turn is stopped (its signal aborts)', async () => {
    const g = gate('g4');
    const running = await g.take('D', 'R0');
    await g.enter(running);
    const waiting = await g.take('D', 'R0');
    const abort = new AbortController();
    const p = g.enter(waiting, abort.signal);
    abort.abort(new Error('stopped'));
    await assert.rejects(p, /stopped/);
    await g.leave(waiting);
    await g.leave(running);
  });
});
