/**
 * The lease of replica-bus.ts: renewed from when a beat was sent, for two thirds of the heartbeat
 * lifetime (the key outlives it by a third: the time to end agents before a taker sees it gone);
 * lost from its end, on an injected clock.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { leaseAt, leaseRenewed, type Lease } from '../../../src/replicas/replica-bus.js';

describe('replica lease', () => {
  it('a beat sent at t holds the lease until t + TTL - TTL/3', () => {
    assert.deepEqual(leaseRenewed(1_000, 1_500), { kind: 'held', until: 2_000 });
    assert.deepEqual(leaseRenewed(0, 15_000), { kind: 'held', until: 10_000 });
  });

  it('held before its end, lost from its end on', () => {
    const held = leaseRenewed(1_000, 1_500);
    assert.equal(leaseAt(held, 1_999), held);
    assert.deepEqual(leaseAt(held, 2_000), { kind: 'lost', since: 2_000 });
    assert.deepEqual(leaseAt(held, 9_000), { kind: 'lost', since: 2_000 }, 'lost since its end, not since it was looked at');
  });

  it('pending and lost leases stay as they are until a beat lands', () => {
    const pending: Lease = { kind: 'pending' };
    const lost: Lease = { kind: 'lost', since: 5 };
    assert.equal(leaseAt(pending, 1e12), pending);
    assert.equal(leaseAt(lost, 1e12), lost);
  });
});
