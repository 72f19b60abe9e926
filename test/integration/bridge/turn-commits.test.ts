/**
 * The commits a turn makes before its agent starts (each one an fsync on SQLite): the event
 * claim; the queued commit (queue entry, reply record, author, banner, thread ownership); the
 * start commit. A StateStore that records each call stands between the bridge and a real store,
 * on both backends (SQLite, and Redis on a loopback redis-server).
 */
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createBridge } from '../../../src/bridge/index.js';
import { BANNER_NO_PERMISSION } from '../../../src/bridge/turns/accept-message.js';
import { silentLogger } from '../../../src/log.js';
import { createSqliteStore, type StateStore, type StateWrite } from '../../../src/state/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { redisStateStore, startRedisServer, type RedisServer } from '../../fakes/redis-server.js';
import { ANA, BOB, conv, fakeRunner, makeConfig, makeMsg, makeProfile, waitFor } from '../../unit/bridge/helpers.js';

/** One write-side call of the store, as "op ns/key" strings (a batch: one entry per write). */
type Commit = string[];

const describeWrite = (w: StateWrite): string => ('ns' in w ? `${w.op} ${w.ns}/${w.key}` : `${w.op} ${w.list}/${w.id}`);

/** Every call that writes is one commit (one transaction / one MULTI or script). */
function recording(inner: StateStore): { store: StateStore; commits: Commit[] } {
  const commits: Commit[] = [];
  const store: StateStore = {
    backend: inner.backend,
    get: (ns, key) => inner.get(ns, key),
    entries: (ns) => inner.entries(ns),
    items: (list) => inner.items(list),
    lists: () => inner.lists(),
    close: () => inner.close(),
    set(ns, key, value, ttlMs) {
      commits.push([`set ${ns}/${key}`]);
      return inner.set(ns, key, value, ttlMs);
    },
    setIfNotExists(ns, key, value, ttlMs) {
      commits.push([`claim ${ns}/${key}`]);
      return inner.setIfNotExists(ns, key, value, ttlMs);
    },
    setIfNoneExist(ns, keys, value, ttlMs) {
      commits.push(keys.map((k) => `claim ${ns}/${k}`));
      return inner.setIfNoneExist(ns, keys, value, ttlMs);
    },
    delete(ns, key) {
      commits.push([`delete ${ns}/${key}`]);
      return inner.delete(ns, key);
    },
    push(list, id, value) {
      commits.push([`push ${list}/${id}`]);
      return inner.push(list, id, value);
    },
    removeItem(list, id) {
      commits.push([`removeItem ${list}/${id}`]);
      return inner.removeItem(list, id);
    },
    write(writes) {
      commits.push(writes.map(describeWrite));
      return inner.write(writes);
    },
  };
  return { store, commits };
}

/**
 * Without the reply's journal (one ledger write when its placeholder was posted): on the way to
 * the spawn only when the platform answers the post at once, as the recording surface does.
 */
const withoutJournal = (commits: Commit[], turnId: string) => commits.filter((cm) => !(cm.length === 1 && cm[0] === `set ledger/${turnId}`));

let redis: RedisServer;
before(async () => {
  redis = await startRedisServer();
});
after(() => redis.stop());

const backends: Array<[string, () => StateStore]> = [
  ['sqlite', () => createSqliteStore({ file: ':memory:' })],
  ['redis', () => redisStateStore(redis.url, `t-${randomUUID()}:`)],
];

for (const [name, open] of backends) {
  describe(`a turn's commits before its agent starts (${name})`, () => {
    /** `atSpawn[n]`: the commits made when the n-th turn's agent was started (later ones are not on the way). */
    const start = (rec: { store: StateStore; commits: Commit[] }, permission = false) => {
      const surface = createRecordingSurface();
      const runner = fakeRunner();
      const atSpawn: Commit[][] = [];
      const bridge = createBridge({
        config: makeConfig(), logger: silentLogger, store: rec.store,
        runTurn: (...args) => {
          atSpawn.push([...rec.commits]);
          return runner.runTurn(...args);
        },
        loadProfile: async () => makeProfile({ permission }),
      });
      bridge.attach(surface);
      return { surface, runner, bridge, atSpawn };
    };

    it('three: the event claim; queued with its author, banner and thread in one; the start', async () => {
      const { surface, runner, bridge, atSpawn } = start(recording(open()));
      const c = conv('C1', '1.1');
      await bridge.handleMessage(makeMsg({ eventId: 'ev-a', conversation: c }));
      const call = await runner.started(1);
      const key = 'test:T1:C1:1.1';
      const turnId = atSpawn[0]![1]![0]!.split('/').at(-1)!;
      const commits = withoutJournal(atSpawn[0]!, turnId);
      assert.deepEqual(commits, [
        ['claim event/test:ev-a'],
        [`push queue:${key}/${turnId}`, `set ledger/${turnId}`, `claim kv/author:${key}`, `claim kv/notice:auto-approve:${key}`, `set thread/${key}`],
        [`set ledger/${turnId}`, `removeItem queue:${key}/${turnId}`],
      ]);
      call.finish({ reply: 'ok' });
      await waitFor(() => surface.messagesIn(c).some((m) => m.content.text.includes('ok')), 'the reply');
      assert.ok(surface.messagesIn(c).some((m) => m.content.text.includes(BANNER_NO_PERMISSION)), 'the first turn shows the banner');
      assert.equal(await bridge.state.store.get('kv', `author:${key}`), 'test:U_ANA');

      // The next turn: the same claims, taken already; no banner, the author stays the first one.
      await bridge.handleMessage(makeMsg({ eventId: 'ev-b', conversation: c, user: BOB }));
      const second = await runner.started(2);
      const later = atSpawn[1]!.slice(atSpawn[0]!.length).filter((cm) => !cm.some((w) => w.includes(turnId)));
      const next = withoutJournal(later, later[1]![0]!.split('/').at(-1)!);
      assert.equal(next.length, 3, 'the same three, besides the first turn\'s own late writes');
      assert.deepEqual(next[1]!.slice(2), [`claim kv/author:${key}`, `claim kv/notice:auto-approve:${key}`, `set thread/${key}`]);
      second.finish({ reply: 'two' });
      await waitFor(() => surface.messagesIn(c).some((m) => m.content.text.includes('two')), 'the second reply');
      assert.equal(surface.messagesIn(c).filter((m) => m.content.text.includes(BANNER_NO_PERMISSION)).length, 1);
      assert.equal(await bridge.state.store.get('kv', `author:${key}`), 'test:U_ANA');
      await bridge.shutdown(1000);
    });

    it('a profile that asks for permission claims no banner; a top-level conversation owns no thread', async () => {
      const { runner, bridge, atSpawn } = start(recording(open()), true);
      await bridge.handleMessage(makeMsg({ eventId: 'ev-c', conversation: conv('C2') }));
      const call = await runner.started(1);
      const turnId = atSpawn[0]![1]![0]!.split('/').at(-1)!;
      assert.equal(withoutJournal(atSpawn[0]!, turnId).length, 3);
      assert.deepEqual(atSpawn[0]![1]!.slice(2), ['claim kv/author:test:T1:C2:'], 'only the author, in the queued commit');
      call.finish({ reply: 'ok' });
      await bridge.shutdown(1000);
    });

    it('a message its platform claimed (with its other keys, in one commit) is not claimed again; twins and redeliveries are dropped', async () => {
      const rec = recording(open());
      const { commits } = rec;
      const { runner, bridge } = start(rec);
      assert.equal(await bridge.claimEvent('slack', 'Ev1', 'msg:C1:1.1'), true);
      assert.deepEqual(commits, [['claim event/slack:Ev1', 'claim event/slack:msg:C1:1.1']]);
      assert.equal(await bridge.claimEvent('slack', 'Ev2', 'msg:C1:1.1'), false, 'the twin event');
      assert.equal(await bridge.claimEvent('slack', 'Ev1', 'msg:C1:1.1'), false, 'a redelivery');
      assert.equal(await bridge.claimEvent('slack', 'Ev2'), true, 'the twin claimed none of its keys');
      const before = commits.length;
      await bridge.handleMessage(makeMsg({ platform: 'test', eventId: 'Ev1', claimed: true }));
      const call = await runner.started(1);
      assert.ok(!commits.slice(before).flat().some((w) => w.startsWith('claim event/')), 'no second claim');
      call.finish({ reply: 'ok' });
      await bridge.shutdown(1000);
    });
  });
}

describe('the banner and the author when the store fails', () => {
  it('the queued commit failing still runs the turn and shows the banner (better twice than never)', async () => {
    const inner = createSqliteStore({ file: ':memory:' });
    const store: StateStore = { ...inner, write: async () => { throw new Error('disk gone'); } };
    const surface = createRecordingSurface();
    const runner = fakeRunner();
    const bridge = createBridge({ config: makeConfig(), logger: silentLogger, store, runTurn: runner.runTurn, loadProfile: async () => makeProfile() });
    bridge.attach(surface);
    await bridge.handleMessage(makeMsg({ user: ANA }));
    (await runner.started(1)).finish({ reply: 'ok' });
    await waitFor(() => surface.messagesIn(conv()).some((m) => m.content.text.includes('ok')), 'the reply');
    assert.ok(surface.messagesIn(conv()).some((m) => m.content.text.includes(BANNER_NO_PERMISSION)));
    await bridge.shutdown(1000);
  });
});
