/**
 * The replica bus from the attacker's side, on a real redis-server: a process that can reach
 * Redis but does not hold the bridge's key publishes a forwarded click `allow` in an admin's
 * name (the message today's bus would act on), a MAC it made up, a valid message again, or a
 * valid message from long ago. None of them decides anything; each is dropped and counted.
 */
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createBridge } from '../../../src/bridge/index.js';
import { createBusKey } from '../../../src/bus-key.js';
import { silentLogger } from '../../../src/log.js';
import { createReplicaBus, type ReplicaBus } from '../../../src/replicas/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { startRedisServer, type RedisServer, closeConnections, connectionsTo } from '../../fakes/redis-server.js';
import { testBusKey } from '../../fixtures/bus-key.js';
import { pollUntil } from '../../e2e/poll-until.js';
import { ANA, BOSS, click, fakeRunner, makeConfig, makeMsg, makeProfile, memoryStore, waitFor } from '../../unit/bridge/helpers.js';

let server: RedisServer;
let raw: Redis;
const buses: ReplicaBus[] = [];
before(async () => {
  server = await startRedisServer();
  raw = new Redis(server.url);
});
after(async () => {
  await Promise.all(buses.map((b) => b.close()));
  raw.disconnect();
  await closeConnections();
  server.stop();
});

function bus(id: string, prefix: string, drops: string[], over: { now?: () => number } = {}): ReplicaBus {
  const b = createReplicaBus({ redis: connectionsTo(server.url), logger: silentLogger, id, prefix, key: testBusKey(), onDropped: (r) => void drops.push(r), ...over });
  buses.push(b);
  return b;
}

/** Subscriptions are asynchronous: probe until the holder answers. */
async function subscribed(from: ReplicaBus): Promise<void> {
  await pollUntil(async () => (await from.forward<{ probe: boolean }, string>({ probe: true }, 100)) === 'here', 'the replicas subscribed', 10_000);
}

describe('replica bus attacks (real redis-server, a raw ioredis client as the attacker)', () => {
  it('a forwarded Allow in an admin\'s name, published raw (unsigned, or with a made-up MAC), decides nothing; the audit names nobody', async () => {
    const drops: string[] = [];
    const surface = createRecordingSurface();
    const runner = fakeRunner();
    const a = bus('HOLDER', 'atk', drops);
    const bridge = createBridge({
      config: makeConfig({ access: { mode: 'open', allowUsers: [], admins: ['test:U_BOSS'], dms: true } }), logger: silentLogger, store: memoryStore(),
      runTurn: runner.runTurn, bus: a, loadProfile: async () => makeProfile({ permission: true }),
    });
    bridge.attach(surface);
    const b = bus('OTHER', 'atk', drops);
    const other = createBridge({ config: makeConfig(), logger: silentLogger, store: memoryStore(), runTurn: fakeRunner().runTurn, bus: b, loadProfile: async () => makeProfile({ permission: true }) });
    other.attach(createRecordingSurface());

    await bridge.handleMessage(makeMsg({ text: 'run it' }));
    const call = await runner.started(1);
    const decision = call.handlers.onPermissionRequest!({ requestId: 'r1', toolName: 'Bash', description: 'wipe', input: { command: 'rm -rf ~' } }, { signal: new AbortController().signal });
    await waitFor(() => surface.prompts().length === 1, 'the prompt on the holder');
    const promptId = surface.prompts()[0]!.view.promptId;
    assert.equal(await a.ready(), true);
    assert.equal(await b.ready(), true);

    // Exactly what a forwarding replica sent before the bus was signed.
    const forged = { kind: 'request', rid: randomUUID(), from: 'OTHER', body: { kind: 'action', ev: { platform: 'test', action: 'allow', id: promptId, user: BOSS }, forms: false } };
    await raw.publish('atk:replicas:requests', JSON.stringify(forged));
    // The signed format, with a MAC made with a key the bridge does not have.
    const json = JSON.stringify({ ...forged, rid: randomUUID(), mid: randomUUID(), sentAt: Date.now() });
    await raw.publish('atk:replicas:requests', `tb1.${createBusKey('a-key-that-is-not-the-bridges-key-000000').mac('bus', ['atk:replicas:requests', json])}.${json}`);
    await raw.publish('atk:replicas:requests', `tb1.${'0'.repeat(64)}.${json}`);

    // Then the author's own Deny, forwarded by the other replica (signed): it arrives after the
    // forgeries on the same connection, so a forged Allow would have decided first.
    const deny = click('deny', promptId, ANA);
    await other.handleAction(deny);
    const got = await decision;
    assert.equal(got.behavior, 'deny', 'the agent was not told allow');
    await bridge.state.idle();
    const trail = await bridge.state.audit.since(0);
    assert.equal(JSON.stringify(trail).includes(BOSS.id), false, 'nothing in the admin\'s name');
    assert.deepEqual(trail.flatMap((r) => (r.kind === 'decision' ? [[r.decision, r.decider?.id]] : [])), [['deny', ANA.id]]);
    // Each of the three forgeries reached both replicas and was dropped by both.
    assert.deepEqual(drops.filter((d) => d !== 'replayed').sort(), ['forged', 'forged', 'forged', 'forged', 'unsigned', 'unsigned']);
    call.finish({ reply: 'done' });
    await bridge.shutdown(1000);
    await other.shutdown(1000);
  });

  it('a forged answer to a forwarded request (its id read off the bus) is not taken for the holder\'s', async () => {
    const drops: string[] = [];
    const asker = bus('ASK', 'ans', drops);
    assert.equal(await asker.ready(), true);
    const listener = new Redis(server.url);
    listener.on('message', (_ch: string, m: string) => {
      // What the attacker saw: the request's rid (inside the signed JSON, which is readable).
      const rid = (JSON.parse(m.slice(m.indexOf('.', 4) + 1)) as { rid: string }).rid;
      void raw.publish('ans:replicas:answers:ASK', JSON.stringify({ kind: 'answer', rid, from: 'HOLDER', answer: { notes: ['Allowed by @boss'] } }));
    });
    await listener.subscribe('ans:replicas:requests');
    assert.equal(await asker.forward({ id: 'p1' }, 500), undefined, 'nobody holds it: no answer, whatever was published');
    await pollUntil(() => drops.includes('unsigned'), 'the forged answer dropped', 10_000);
    listener.disconnect();
  });

  it('a valid message published again is refused (the holder acts once), and so is one sent outside the time window', async () => {
    const drops: string[] = [];
    let skew = 0;
    const a = bus('RA', 'rp', drops);
    const h = bus('RH', 'rp', drops, { now: () => Date.now() + skew });
    const seen: string[] = [];
    h.serve<{ id: string; probe?: boolean }, string>(async ({ body }) => {
      if (body.probe) return 'here';
      seen.push(body.id);
      return 'done';
    });
    await subscribed(a);
    // The attacker listens on the bus, and keeps a copy of a real forwarded request.
    const listener = new Redis(server.url);
    const copies: string[] = [];
    listener.on('message', (_ch: string, m: string) => void copies.push(m));
    await listener.subscribe('rp:replicas:requests');
    assert.equal(await a.forward({ id: 'stop-1' }), 'done');
    await pollUntil(() => copies.some((c) => c.includes('stop-1')), 'the copy of the request', 10_000);
    const copy = copies.find((c) => c.includes('stop-1'))!;
    await raw.publish('rp:replicas:requests', copy);
    await raw.publish('rp:replicas:requests', copy);
    // A later request shows the copies were looked at (same connection, in order).
    assert.equal(await a.forward({ id: 'stop-2' }), 'done');
    assert.deepEqual(seen, ['stop-1', 'stop-2'], 'the replayed copies were not acted on');
    assert.deepEqual(drops.filter((d) => d === 'replayed').length >= 2, true, `replays counted: ${drops}`);

    // The holder's clock is 10 minutes ahead: what the other sends now is outside its window.
    skew = 10 * 60_000;
    const before = drops.length;
    assert.equal(await a.forward({ id: 'stop-3' }, 300), undefined, 'a stale request gets no answer');
    assert.deepEqual(seen, ['stop-1', 'stop-2']);
    assert.ok(drops.slice(before).includes('stale'), `stale counted: ${drops.slice(before)}`);
    listener.disconnect();
  });
});
