import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createTurnQueue, type QueueEntry } from '../../../src/bridge/turns/turn-queue.js';

interface E extends QueueEntry {
  name: string;
  positions: number[];
  started: boolean;
}

function entry(name: string, key: string, log: string[], owner = `owner-${name}`): E {
  const e: E = {
    name,
    key,
    owner,
    positions: [],
    started: false,
    start() {
      e.started = true;
      log.push(name);
    },
    onPosition(p) {
      e.positions.push(p);
    },
  };
  return e;
}

describe('turn queue: per-person and bridge-wide bounds, prompt parking', () => {
  it('one person runs at most runningPerUser turns; others start meanwhile', () => {
    const log: string[] = [];
    const q = createTurnQueue<E>({ maxConcurrent: 10, queueDepth: 5, runningPerUser: 1 });
    const ana1 = entry('ana1', 'A', log, 'ana');
    const ana2 = entry('ana2', 'B', log, 'ana');
    const ben = entry('ben', 'C', log, 'ben');
    for (const e of [ana1, ana2, ben]) assert.equal(q.offer(e), 'accepted');
    q.pump();
    assert.deepEqual(log, ['ana1', 'ben'], 'ana\'s second turn waits for her first');
    q.done(ana1);
    q.pump();
    assert.deepEqual(log, ['ana1', 'ben', 'ana2']);
  });

  it('waiting turns are bounded per person (user-busy) and in all (full); a turn that starts at once is not waiting', () => {
    const q = createTurnQueue<E>({ maxConcurrent: 1, queueDepth: 100, waitingPerUser: 2, maxWaiting: 3 });
    const log: string[] = [];
    assert.equal(q.offer(entry('run', 'K0', log, 'ana')), 'accepted');
    q.pump();
    assert.equal(q.offer(entry('w1', 'K1', log, 'ana')), 'accepted');
    assert.equal(q.offer(entry('w2', 'K2', log, 'ana')), 'accepted');
    assert.equal(q.offer(entry('w3', 'K3', log, 'ana')), 'user-busy');
    assert.equal(q.offer(entry('b1', 'K4', log, 'ben')), 'accepted');
    assert.equal(q.offer(entry('c1', 'K5', log, 'cat')), 'full', '300 strangers cannot pile up 296 waiting turns');
    assert.equal(q.waiting, 3);
  });

  it('a turn waiting on a prompt parks: its slot goes to the next turn, up to maxParked; unpark takes the next free slot', async () => {
    const log: string[] = [];
    const q = createTurnQueue<E>({ maxConcurrent: 1, queueDepth: 5, maxParked: 1 });
    const [a, b, c] = ['a', 'b', 'c'].map((n) => entry(n, n, log)) as [E, E, E];
    for (const e of [a, b, c]) q.offer(e);
    q.pump();
    assert.deepEqual(log, ['a']);
    assert.equal(q.park(a), true);
    assert.equal(q.parked, 1);
    q.pump();
    assert.deepEqual(log, ['a', 'b'], 'b runs while a waits for a person');
    assert.equal(q.park(b), false, 'parking room is bounded (processes stay <= maxConcurrent + maxParked)');
    let resumed = false;
    const back = q.unpark(a).then(() => (resumed = true));
    await Promise.resolve();
    assert.equal(resumed, false, 'no slot is free: a waits for one');
    assert.equal(q.running, 1, 'maxConcurrent holds');
    q.done(b);
    q.pump();
    await back;
    assert.equal(q.running, 1);
    assert.equal(q.parked, 0, 'a holds a slot again');
    assert.deepEqual(log, ['a', 'b'], 'a took the freed slot before c, which waited');
    q.done(a);
    q.pump();
    assert.deepEqual(log, ['a', 'b', 'c']);
    assert.equal(q.running, 1);
    q.park(c);
    q.done(c);
    assert.equal(q.running, 0, 'a parked turn that ends frees nothing twice');
  });

  it('unpark never passes maxConcurrent, however many decisions come at once', async () => {
    const log: string[] = [];
    const q = createTurnQueue<E>({ maxConcurrent: 2, queueDepth: 5, maxParked: 2 });
    const all = ['a', 'b', 'c', 'd'].map((n) => entry(n, n, log));
    for (const e of all) q.offer(e);
    q.pump();
    assert.equal(q.park(all[0]!), true);
    assert.equal(q.park(all[1]!), true);
    q.pump();
    assert.deepEqual(log, ['a', 'b', 'c', 'd']);
    const resumed: string[] = [];
    const backs = [all[0]!, all[1]!].map((e) => q.unpark(e).then(() => resumed.push(e.name)));
    await Promise.resolve();
    assert.equal(q.running, 2, 'both decided, no slot free: still 2 running');
    assert.deepEqual(resumed, []);
    q.done(all[2]!);
    q.pump();
    await backs[0];
    assert.deepEqual(resumed, ['a']);
    assert.equal(q.running, 2);
    q.done(all[3]!);
    q.pump();
    await backs[1];
    assert.deepEqual(resumed, ['a', 'b']);
    assert.equal(q.running, 2);
  });

  it('a parked turn frees its owner\'s share; taking it back waits for the share too', async () => {
    const log: string[] = [];
    const q = createTurnQueue<E>({ maxConcurrent: 10, queueDepth: 5, runningPerUser: 1, maxParked: 5 });
    const ana1 = entry('ana1', 'A', log, 'ana');
    const ana2 = entry('ana2', 'B', log, 'ana');
    q.offer(ana1);
    q.offer(ana2);
    q.pump();
    assert.deepEqual(log, ['ana1']);
    assert.equal(q.park(ana1), true);
    q.pump();
    assert.deepEqual(log, ['ana1', 'ana2'], 'ana\'s other turn runs while her first waits on a person');
    let resumed = false;
    const back = q.unpark(ana1).then(() => (resumed = true));
    await Promise.resolve();
    assert.equal(resumed, false, 'her share is taken by ana2');
    q.done(ana2);
    q.pump();
    await back;
    assert.equal(q.running, 1);
  });

  it('a turn that ends while waiting to take its slot back is let go, and holds nothing', async () => {
    const log: string[] = [];
    const q = createTurnQueue<E>({ maxConcurrent: 1, queueDepth: 5, maxParked: 1 });
    const [a, b] = ['a', 'b'].map((n) => entry(n, n, log)) as [E, E];
    q.offer(a);
    q.offer(b);
    q.pump();
    q.park(a);
    q.pump();
    const back = q.unpark(a);
    q.done(a);
    await back;
    assert.equal(q.running, 1, 'b alone holds a slot');
    q.done(b);
    assert.equal(q.running, 0);
  });
});

describe('turn queue', () => {
  it('runs one turn per conversation, in arrival order', () => {
    const log: string[] = [];
    const q = createTurnQueue<E>({ maxConcurrent: 10, queueDepth: 5 });
    const [a1, a2, a3] = ['a1', 'a2', 'a3'].map((n) => entry(n, 'A', log)) as [E, E, E];
    for (const e of [a1, a2, a3]) assert.equal(q.offer(e), 'accepted');
    q.pump();
    assert.deepEqual(log, ['a1']);
    assert.deepEqual(a2.positions, [1]);
    assert.deepEqual(a3.positions, [2]);
    q.done(a1);
    q.pump();
    assert.deepEqual(log, ['a1', 'a2']);
    assert.deepEqual(a3.positions, [2, 1]);
    q.done(a2);
    q.pump();
    assert.deepEqual(log, ['a1', 'a2', 'a3']);
    assert.equal(q.running, 1);
    assert.equal(q.waiting, 0);
  });

  it('caps running turns globally and starts waiting ones in arrival order', () => {
    const log: string[] = [];
    const q = createTurnQueue<E>({ maxConcurrent: 2, queueDepth: 5 });
    const es = ['a', 'b', 'c', 'd'].map((k) => entry(k, k, log));
    for (const e of es) q.offer(e);
    q.pump();
    assert.deepEqual(log, ['a', 'b']);
    assert.deepEqual(es[2]!.positions, [1]);
    assert.deepEqual(es[3]!.positions, [2]);
    q.done(es[1]!);
    q.pump();
    assert.deepEqual(log, ['a', 'b', 'c']);
    assert.deepEqual(es[3]!.positions, [2, 1]);
    assert.equal(q.running, 2);
  });

  it('skips a conversation that is busy when a slot frees', () => {
    const log: string[] = [];
    const q = createTurnQueue<E>({ maxConcurrent: 2, queueDepth: 5 });
    const a1 = entry('a1', 'A', log);
    const b1 = entry('b1', 'B', log);
    const a2 = entry('a2', 'A', log);
    const c1 = entry('c1', 'C', log);
    for (const e of [a1, b1, a2, c1]) q.offer(e);
    q.pump();
    assert.deepEqual(log, ['a1', 'b1']);
    q.done(b1);
    q.pump();
    // a2 is first in line but its conversation is still running: c1 goes.
    assert.deepEqual(log, ['a1', 'b1', 'c1']);
    q.done(a1);
    q.pump();
    assert.deepEqual(log, ['a1', 'b1', 'c1', 'a2']);
  });

  it('refuses past 1 + queueDepth turns per conversation, counting a turn waiting for a slot', () => {
    const log: string[] = [];
    const q = createTurnQueue<E>({ maxConcurrent: 1, queueDepth: 1 });
    assert.equal(q.offer(entry('x', 'X', log)), 'accepted');
    q.pump();
    assert.equal(q.offer(entry('a1', 'A', log)), 'accepted');
    assert.equal(q.offer(entry('a2', 'A', log)), 'accepted');
    assert.equal(q.offer(entry('a3', 'A', log)), 'busy');
    assert.equal(q.offer(entry('x2', 'X', log)), 'accepted');
    assert.equal(q.offer(entry('x3', 'X', log)), 'busy');
    const zero = createTurnQueue<E>({ maxConcurrent: 1, queueDepth: 0 });
    assert.equal(zero.offer(entry('z1', 'Z', log)), 'accepted');
    assert.equal(zero.offer(entry('z2', 'Z', log)), 'busy');
  });

  it('remove and drain take waiting turns out and positions move up', () => {
    const log: string[] = [];
    const q = createTurnQueue<E>({ maxConcurrent: 1, queueDepth: 5 });
    const es = ['a', 'b', 'c', 'd'].map((k) => entry(k, k, log));
    for (const e of es) q.offer(e);
    q.pump();
    assert.equal(q.remove(es[1]!), true);
    assert.equal(q.remove(es[1]!), false);
    assert.equal(q.remove(es[0]!), false, 'a running turn is not waiting');
    q.pump();
    assert.deepEqual(es[2]!.positions, [2, 1]);
    assert.deepEqual(es[3]!.positions, [3, 2]);
    assert.deepEqual(q.drain().map((e) => e.name), ['c', 'd']);
    assert.equal(q.waiting, 0);
  });
});
