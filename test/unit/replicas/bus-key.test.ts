/** The bus key and the replay guard, alone: what a MAC is bound to, a rotation, bounded memory. */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createBusKey } from '../../../src/bus-key.js';
import { openMessage, ReplayGuard, sealMessage } from '../../../src/replicas/bus-wire.js';
import { TEST_BUS_KEY } from '../../fixtures/bus-key.js';

const OTHER = 'another-key-of-at-least-32-characters-0000';

describe('bus key', () => {
  it('a MAC is bound to its purpose, its parts and their boundaries; the previous key verifies and never signs', () => {
    const k = createBusKey(TEST_BUS_KEY);
    const mac = k.mac('state', ['kv', 'ab', 'c']);
    assert.equal(k.verify('state', ['kv', 'ab', 'c'], mac), true);
    assert.equal(k.verify('bus', ['kv', 'ab', 'c'], mac), false, 'a record MAC is no bus MAC');
    assert.equal(k.verify('state', ['kv', 'a', 'bc'], mac), false, 'parts are length-prefixed');
    assert.equal(k.verify('state', ['kv', 'ab', 'c'], mac.toUpperCase()), false);
    assert.equal(createBusKey(OTHER).verify('state', ['kv', 'ab', 'c'], mac), false, 'another key');
    const rotating = createBusKey(OTHER, TEST_BUS_KEY);
    assert.equal(rotating.verify('state', ['kv', 'ab', 'c'], mac), true, 'the previous key still verifies');
    assert.notEqual(rotating.mac('state', ['kv', 'ab', 'c']), mac, 'and the new one signs');
  });

  it('a sealed message opens on its own channel only, and not once changed', () => {
    const k = createBusKey(TEST_BUS_KEY);
    const raw = sealMessage(k, 'tb:replicas:requests', { kind: 'request', rid: 'r', from: 'A', body: { id: 'p1' } }, 1000);
    const opened = openMessage<{ body: { id: string } }>(k, 'tb:replicas:requests', raw);
    assert.ok(opened.ok && opened.msg.body.id === 'p1' && opened.sentAt === 1000);
    assert.deepEqual(openMessage(k, 'tb:replicas:answers:A', raw), { ok: false, reason: 'forged' });
    assert.deepEqual(openMessage(k, 'tb:replicas:requests', raw.replace('p1', 'p2')), { ok: false, reason: 'forged' });
    assert.deepEqual(openMessage(k, 'tb:replicas:requests', '{"kind":"request"}'), { ok: false, reason: 'unsigned' });
    assert.deepEqual(openMessage(k, 'tb:replicas:requests', 'tb1.nodot'), { ok: false, reason: 'malformed' });
  });
});

describe('replay guard', () => {
  it('refuses a seen id, a message outside the window either way, and (memory full) anything at or before the newest forgotten one', () => {
    let now = 100_000;
    const g = new ReplayGuard(1_000, 3, () => now);
    assert.equal(g.admit('a', now), 'ok');
    assert.equal(g.admit('a', now), 'replayed');
    assert.equal(g.admit('old', now - 1_001), 'stale');
    assert.equal(g.admit('future', now + 1_001), 'stale');
    assert.equal(g.admit('b', now + 1), 'ok');
    assert.equal(g.admit('c', now + 2), 'ok');
    assert.equal(g.admit('d', now + 3), 'ok', 'the fourth pushes "a" out');
    assert.equal(g.size, 3);
    assert.equal(g.admit('a', now), 'stale', 'forgotten, but at or before the floor: still refused');
    assert.equal(g.admit('e', now - 5), 'stale', 'any message from before the floor');
    now += 5_000;
    assert.equal(g.admit('f', now), 'ok');
    assert.equal(g.size, 1, 'ids outside the window are forgotten');
  });
});
