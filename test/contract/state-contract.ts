/**
 * One suite every StateStore backend runs (SQLite embedded, Redis shared, memory for unit tests):
 * the primitives, then the typed State on top, then the plain records it keeps through Keyv
 * (state/keyv-records.ts). `open()` gives a fresh store on the same data each call (a restart, or
 * a second replica); `expire(ns, key)` makes one key's TTL run out now.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { silentLogger } from '../../src/log.js';
import { openState, readAudit, type LedgerRecord, type QueuedTurnRecord, type RejectedRecord, type StateStore, type StoredRule } from '../../src/state/index.js';
import { logCapture } from '../fakes/log-capture.js';

export interface StateContractRig {
  /** A store on the suite's data (a second call = another client on the same data). */
  open(): StateStore;
  /** Make this key's TTL run out now. */
  expire(ns: string, key: string): Promise<void>;
  /**
   * Backends whose records are sealed (Redis): the raw text at a record's place, read and written
   * as a process that reaches the backend without the bridge's key could; what the store rejected.
   */
  sealed?: {
    readRaw(ns: string, key: string): Promise<string | null>;
    writeRaw(ns: string, key: string, raw: string): Promise<void>;
    rejected: RejectedRecord[];
  };
}

const queued = (turnId: string, text: string): QueuedTurnRecord => ({
  turnId,
  holder: 'r1',
  enqueuedAt: 1,
  message: { platform: 'slack', conversation: { space: 'T1', channel: 'C1', thread: '1.1' }, user: { id: 'U1' }, text, eventId: `e-${turnId}`, receivedAt: 1, attachments: [{ url: 'https://files/x', filename: 'x.txt', size: 3 }] },
});

export function stateContract(name: string, rigFactory: () => Promise<StateContractRig> | StateContractRig): void {
  describe(`state contract: ${name}`, () => {
    it('get / set / delete round-trip JSON values; namespaces and keys do not collide', async () => {
      const rig = await rigFactory();
      const s = rig.open();
      assert.equal(await s.get('session', 'k'), undefined);
      await s.set('session', 'k', { a: 1, nested: { b: [1, 'two'] } });
      assert.deepEqual(await s.get('session', 'k'), { a: 1, nested: { b: [1, 'two'] } });
      await s.set('thread', 'k', 'other');
      await s.set('session', 'k:x', 'colon');
      assert.deepEqual(await s.get('session', 'k'), { a: 1, nested: { b: [1, 'two'] } });
      assert.equal(await s.get('thread', 'k'), 'other');
      await s.set('session', 'k', 2);
      assert.equal(await s.get('session', 'k'), 2, 'set replaces');
      assert.equal(await s.delete('session', 'k'), true);
      assert.equal(await s.delete('session', 'k'), false);
      assert.equal(await s.get('session', 'k'), undefined);
      await s.close();
    });

    it('what one client wrote, another client (a restart, a replica) reads', async () => {
      const rig = await rigFactory();
      const a = rig.open();
      await a.set('session', 'conv', { session_id: 's1' });
      await a.push('q', 't1', { n: 1 });
      await a.close();
      const b = rig.open();
      assert.deepEqual(await b.get('session', 'conv'), { session_id: 's1' });
      assert.deepEqual(await b.items('q'), [{ id: 't1', value: { n: 1 } }]);
      await b.close();
    });

    it('setIfNotExists: exactly one of many concurrent claims wins, across clients; an expired claim can be taken again', async () => {
      const rig = await rigFactory();
      const a = rig.open();
      const b = rig.open();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).setIfNotExists('event', 'ev1', { by: i }, 60_000)));
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal(await a.setIfNotExists('event', 'ev1', 'again', 60_000), false);
      await rig.expire('event', 'ev1');
      assert.equal(await a.get('event', 'ev1'), undefined, 'an expired value reads as absent');
      assert.equal(await b.setIfNotExists('event', 'ev1', 'later', 60_000), true);
      assert.equal(await a.get('event', 'ev1'), 'later');
      await a.close();
      await b.close();
    });

    it('setIfNoneExist: all keys or none, across clients; a taken key writes nothing; an expired one is free again', async () => {
      const rig = await rigFactory();
      const a = rig.open();
      const b = rig.open();
      // Twins: each claims its own event id and the key both share; exactly one gets all of it.
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).setIfNoneExist('event', [`ev${i}`, 'msg:C1:1.1'], { by: i }, 60_000)));
      assert.equal(results.filter(Boolean).length, 1);
      const winner = results.indexOf(true);
      assert.deepEqual(await a.get('event', 'msg:C1:1.1'), { by: winner });
      assert.deepEqual(await b.get('event', `ev${winner}`), { by: winner });
      for (let i = 0; i < 10; i++) if (i !== winner) assert.equal(await a.get('event', `ev${i}`), undefined, 'a loser claims none of its keys');
      assert.equal(await a.setIfNoneExist('event', ['fresh', `ev${winner}`], 1, 60_000), false);
      assert.equal(await a.get('event', 'fresh'), undefined);
      await rig.expire('event', 'msg:C1:1.1');
      assert.equal(await b.setIfNoneExist('event', ['msg:C1:1.1', 'later'], 'again', 60_000), true, 'an expired key is free');
      assert.equal(await a.get('event', 'later'), 'again');
      assert.equal(await a.setIfNoneExist('kv', ['forever'], 1), true, 'without a TTL');
      assert.equal(await a.setIfNoneExist('kv', ['forever'], 2), false);
      assert.equal(await b.get('kv', 'forever'), 1);
      await a.close();
      await b.close();
    });

    it('TTL values expire; values without TTL stay', async () => {
      const rig = await rigFactory();
      const s = rig.open();
      await s.set('thread', 'a', 1, 60_000);
      await s.set('thread', 'b', 1);
      await rig.expire('thread', 'a');
      assert.equal(await s.get('thread', 'a'), undefined);
      assert.equal(await s.get('thread', 'b'), 1);
      assert.deepEqual((await s.entries('thread')).map((e) => e.key), ['b']);
      await s.close();
    });

    it('entries lists a namespace, nothing else', async () => {
      const rig = await rigFactory();
      const s = rig.open();
      await s.set('ledger', 'r2', { kind: 'x' });
      await s.set('ledger', 'r1', { kind: 'y' });
      await s.set('ledgers', 'no', 1);
      await s.set('session', 'no', 1);
      assert.deepEqual(await s.entries('ledger'), [{ key: 'r1', value: { kind: 'y' } }, { key: 'r2', value: { kind: 'x' } }]);
      assert.deepEqual(await s.entries('empty'), []);
      await s.close();
    });

    it('lists keep push order across clients; a re-push keeps its place; remove; lists() names non-empty lists', async () => {
      const rig = await rigFactory();
      const a = rig.open();
      const b = rig.open();
      await a.push('queue:c1', 't1', 1);
      await b.push('queue:c1', 't2', 2);
      await a.push('queue:c1', 't3', 3);
      await b.push('queue:c2', 'u1', 'x');
      await a.push('queue:c1', 't1', 'one');
      assert.deepEqual(await b.items('queue:c1'), [{ id: 't1', value: 'one' }, { id: 't2', value: 2 }, { id: 't3', value: 3 }]);
      assert.deepEqual(await a.lists(), ['queue:c1', 'queue:c2']);
      assert.equal(await a.removeItem('queue:c1', 't2'), true);
      assert.equal(await a.removeItem('queue:c1', 't2'), false);
      assert.equal(await b.removeItem('queue:c2', 'u1'), true);
      assert.deepEqual((await b.items('queue:c1')).map((i) => i.id), ['t1', 't3']);
      assert.deepEqual(await a.lists(), ['queue:c1']);
      assert.deepEqual(await a.items('queue:none'), []);
      await a.close();
      await b.close();
    });

    it('write: several writes in one, each with its own effect, in order; pushes keep their place among other pushes', async () => {
      const rig = await rigFactory();
      const a = rig.open();
      const b = rig.open();
      await a.set('ledger', 'gone', 1);
      await b.push('queue:w', 'first', 1);
      await a.write([
        { op: 'push', list: 'queue:w', id: 'second', value: 2 },
        { op: 'set', ns: 'ledger', key: 'r1', value: { turn: 'queued' } },
        { op: 'set', ns: 'ledger', key: 'r1', value: { turn: 'running' } },
        { op: 'delete', ns: 'ledger', key: 'gone' },
        { op: 'push', list: 'queue:w', id: 'third', value: 3 },
        { op: 'set', ns: 'event', key: 'short', value: 1, ttlMs: 60_000 },
      ]);
      await b.push('queue:w', 'fourth', 4);
      assert.deepEqual((await b.items('queue:w')).map((i) => i.id), ['first', 'second', 'third', 'fourth']);
      assert.deepEqual(await b.get('ledger', 'r1'), { turn: 'running' }, 'the later of two writes to one key wins');
      assert.equal(await b.get('ledger', 'gone'), undefined);
      await rig.expire('event', 'short');
      assert.equal(await b.get('event', 'short'), undefined, 'a TTL given in a batch applies');
      await b.write([{ op: 'removeItem', list: 'queue:w', id: 'second' }, { op: 'push', list: 'queue:w', id: 'first', value: 'one' }]);
      assert.deepEqual(await a.items('queue:w'), [{ id: 'first', value: 'one' }, { id: 'third', value: 3 }, { id: 'fourth', value: 4 }]);
      await a.write([]);
      await a.close();
      await b.close();
    });

    it('write: a claim is written only where no live value is, says so in its result, and the other writes still go', async () => {
      const rig = await rigFactory();
      const a = rig.open();
      const b = rig.open();
      await a.set('kv', 'taken', 'first');
      const results = await b.write([
        { op: 'push', list: 'queue:c', id: 't1', value: 1 },
        { op: 'claim', ns: 'kv', key: 'taken', value: 'second' },
        { op: 'claim', ns: 'kv', key: 'free', value: 'mine' },
        { op: 'set', ns: 'ledger', key: 't1', value: 'queued' },
        { op: 'claim', ns: 'event', key: 'short', value: 1, ttlMs: 60_000 },
      ]);
      assert.deepEqual(results, [true, false, true, true, true]);
      assert.equal(await a.get('kv', 'taken'), 'first', 'a taken claim keeps the value there');
      assert.equal(await a.get('kv', 'free'), 'mine');
      assert.equal(await a.get('ledger', 't1'), 'queued');
      assert.deepEqual((await a.items('queue:c')).map((i) => i.id), ['t1']);
      // Many clients claiming one key in batches: exactly one batch wins it.
      const many = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).write([{ op: 'claim', ns: 'kv', key: 'race', value: i }, { op: 'set', ns: 'kv', key: `mine${i}`, value: i }])));
      assert.equal(many.filter((r) => r[0]).length, 1);
      assert.ok(many.every((r) => r[1] === true));
      await rig.expire('event', 'short');
      assert.deepEqual(await b.write([{ op: 'claim', ns: 'event', key: 'short', value: 2, ttlMs: 60_000 }]), [true], 'an expired claim can be taken again');
      assert.deepEqual(await a.write([]), []);
      await a.close();
      await b.close();
    });

    it('write: all or nothing (a write that cannot be made leaves every other write of the batch undone)', async () => {
      const rig = await rigFactory();
      const s = rig.open();
      await s.set('ledger', 'kept', 'before');
      const unserializable = { big: 1n };
      await assert.rejects(s.write([
        { op: 'set', ns: 'ledger', key: 'kept', value: 'after' },
        { op: 'push', list: 'queue:x', id: 't', value: 1 },
        { op: 'set', ns: 'ledger', key: 'bad', value: unserializable },
      ]));
      assert.equal(await s.get('ledger', 'kept'), 'before');
      assert.deepEqual(await s.items('queue:x'), []);
      assert.equal(await s.get('ledger', 'bad'), undefined);
      await s.close();
    });

    it('State: sessions, claims, owned threads, queues, ledger and Run again records', async () => {
      const rig = await rigFactory();
      const st = openState(rig.open(), { logger: silentLogger, holder: 'r1' });
      const r2 = openState(rig.open(), { logger: silentLogger, holder: 'r2' });
      await st.sessions.set('slack:T1:C1:1.1', { sessionId: 's', profile: '/p' });
      assert.equal((await st.sessions.get('slack:T1:C1:1.1'))?.session_id, 's');
      assert.equal(await st.sessions.delete('slack:T1:C1:1.1'), true);

      assert.equal(await st.events.claim(['slack:Ev1'], 60_000), true);
      assert.equal(await r2.events.claim(['slack:Ev1'], 60_000), false);
      assert.equal(await st.events.claim(['slack:Ev2', 'slack:msg:C1:2.2'], 60_000), true);
      assert.equal(await r2.events.claim(['slack:Ev3', 'slack:msg:C1:2.2'], 60_000), false, 'the twin event shares the message key');
      assert.equal(await r2.events.claim(['slack:Ev3'], 60_000), true, 'and claimed none of its keys');
      assert.equal(await r2.events.claim(['slack:Ev2'], 60_000), false);
      assert.equal(await r2.events.claimed('slack:msg:C1:2.2'), true);
      assert.equal(await r2.events.claimed('slack:Ev9'), false);

      // The first accepted turn's claims: the first author wins; a notice is claimed once, until forgotten.
      assert.equal(await st.conversations.author('slack:T1:C1:1.1'), undefined);
      assert.deepEqual(await st.write([st.writes.authorClaim('slack:T1:C1:1.1', 'slack:U1'), st.writes.noticeClaim('slack:T1:C1:1.1', 'auto-approve')]), [true, true]);
      assert.deepEqual(await st.write([st.writes.authorClaim('slack:T1:C1:1.1', 'slack:U2'), st.writes.noticeClaim('slack:T1:C1:1.1', 'auto-approve')]), [false, false]);
      assert.equal(await st.conversations.author('slack:T1:C1:1.1'), 'slack:U1');
      assert.equal(await st.store.get('kv', 'author:slack:T1:C1:1.1'), 'slack:U1', 'under the key stores written before keep');
      assert.equal(await st.store.get('kv', 'notice:auto-approve:slack:T1:C1:1.1'), true);
      assert.equal(await st.conversations.forgetNotice('slack:T1:C1:1.1', 'auto-approve'), true);
      assert.deepEqual(await st.write([st.writes.noticeClaim('slack:T1:C1:1.1', 'auto-approve')]), [true], 'forgotten: shown again');

      assert.equal(await st.threads.owns('slack:T1:C1:1.1'), false);
      await st.threads.own('slack:T1:C1:1.1', 60_000);
      assert.equal(await st.threads.owns('slack:T1:C1:1.1'), true);

      await st.queue.push('slack:T1:C1:1.1', queued('t1', 'first'));
      await st.queue.push('slack:T1:C1:1.1', queued('t2', 'second'));
      assert.deepEqual((await st.queue.list('slack:T1:C1:1.1')).map((q) => q.message.text), ['first', 'second']);
      assert.deepEqual(await st.queue.conversations(), ['slack:T1:C1:1.1']);
      assert.equal((await st.queue.list('slack:T1:C1:1.1'))[0]!.message.attachments[0]!.url, 'https://files/x', 'attachment refs kept');
      await st.queue.remove('slack:T1:C1:1.1', 't1');
      await st.queue.remove('slack:T1:C1:1.1', 't2');
      assert.deepEqual(await st.queue.conversations(), []);

      const reply: LedgerRecord = {
        kind: 'reply', id: 't1', holder: 'r1', turn: 'running', message: queued('t1', 'hi').message, author: { id: 'U1' },
        journal: { parts: [{ kind: 'part', ref: { id: 'C1:2.2', conversation: { space: 'T1', channel: 'C1', thread: '1.1' } }, content: { text: 'partial', status: 'working…', stopActionId: 'stop-1' } }] },
        updatedAt: 9,
      };
      const agent: LedgerRecord = { kind: 'agent', id: 'agent:t1', turnId: 't1', holder: 'r1', pid: 123, startTime: '456' };
      await st.ledger.put(reply);
      await st.ledger.put(agent);
      assert.deepEqual((await st.ledger.all()).map((r) => r.id).sort(), ['agent:t1', 't1']);
      assert.deepEqual(await st.ledger.get('t1'), reply);
      await st.ledger.remove('agent:t1');
      assert.deepEqual((await st.ledger.all()).map((r) => r.id), ['t1']);

      await st.reruns.put('rerun-t1', { message: reply.message, author: { id: 'U1' }, ref: reply.journal.parts[0]!.ref, content: { text: 'x' } }, 60_000);
      assert.equal((await st.reruns.get('rerun-t1'))?.message.text, 'hi');
      assert.equal(await st.reruns.take('rerun-t1', 60_000), true);
      assert.equal(await r2.reruns.take('rerun-t1', 60_000), false, 'Run again works once');

      const tree = { repo: '/srv/app', gitDir: '/srv/app/.git', path: '/ws/c/worktree', branch: 'turnbridge/ab12cd34', base: 'f00d', baseRef: 'HEAD', idleDays: 14, createdAt: 1, usedAt: 2 };
      assert.equal(await st.worktrees.get('slack:T1:C1:1.1'), undefined);
      assert.equal(await st.worktrees.put('slack:T1:C1:1.1', tree), true);
      assert.deepEqual(await r2.worktrees.get('slack:T1:C1:1.1'), tree, 'another client reads it');
      await r2.worktrees.put('slack:T1:C1:1.1', { ...tree, usedAt: 3, removed: 'idle' });
      assert.deepEqual(await st.worktrees.all(), [{ conversation: 'slack:T1:C1:1.1', record: { ...tree, usedAt: 3, removed: 'idle' } }]);
      await st.close();
      await r2.close();
    });

    it('State: a session is kept per conversation; a malformed record or an id not safe to resume reads as none', async () => {
      const rig = await rigFactory();
      const st = openState(rig.open(), { logger: silentLogger, now: () => 77 });
      assert.equal(await st.sessions.set('slack:T1:C1:1.1', { sessionId: 'abc', profile: '/p.yaml', author: 'slack:U1' }), true);
      const other = openState(rig.open(), { logger: silentLogger });
      assert.deepEqual(await other.sessions.get('slack:T1:C1:1.1'), { session_id: 'abc', profile: '/p.yaml', updated_at: 77, author: 'slack:U1' }, 'another client reads it');
      assert.equal(await other.sessions.get('slack:T1:C1:'), undefined);
      await st.store.set('session', 'bad', { session_id: 42 });
      assert.equal(await st.sessions.get('bad'), undefined, 'malformed');
      await st.store.set('session', 'flag', { session_id: '--dangerously-skip-permissions', profile: '/p', updated_at: 1 });
      assert.equal(await st.sessions.get('flag'), undefined, 'an id that reads as an option');
      assert.equal(await other.sessions.delete('slack:T1:C1:1.1'), true);
      assert.equal(await st.sessions.get('slack:T1:C1:1.1'), undefined);
      await st.close();
      await other.close();
    });

    it('State: a reset mark moves on each reset and is seen by every client; a save under an old mark is refused', async () => {
      const rig = await rigFactory();
      const a = openState(rig.open(), { logger: silentLogger });
      const b = openState(rig.open(), { logger: silentLogger });
      const before = await a.resets.current('K');
      assert.equal(before, '');
      assert.equal(await b.resets.reset('K', async () => 'forgotten'), 'forgotten');
      const after = await a.resets.current('K');
      assert.notEqual(after, before, 'the other client sees the reset');
      let saved = 0;
      assert.equal(await a.resets.saveUnlessReset('K', before, async () => void saved++), false);
      assert.equal(await a.resets.saveUnlessReset('K', after, async () => void saved++), true);
      assert.equal(saved, 1);
      await a.close();
      await b.close();
    });

    it('State: rules are kept per conversation, shared by clients, deduplicated, capped, cleared', async () => {
      const rig = await rigFactory();
      const a = openState(rig.open(), { logger: silentLogger });
      const b = openState(rig.open(), { logger: silentLogger });
      const rule = (command: string, setAt = 1): StoredRule => ({ v: 2, rule: { kind: 'exact', tool: 'Bash', command }, scope: { kind: 'thread' }, setBy: { platform: 'slack', id: 'U1' }, setAt });
      assert.equal(await a.rules.add('c1', rule('ls')), true);
      assert.equal(await a.rules.add('c1', rule('ls', 2)), true, 'the same rule again: kept as it was');
      assert.deepEqual((await b.rules.list('c1')).map((r) => [r.rule.kind === 'exact' && r.rule.command, r.setAt]), [['ls', 1]]);
      assert.equal((await b.rules.find('c1', (r) => r.rule.kind === 'exact' && r.rule.command === 'ls'))?.setAt, 1);
      assert.equal(await b.rules.find('c2', () => true), undefined, 'another conversation has none');
      for (let i = 0; i < 60; i++) await a.rules.add('c3', rule(`cmd ${i}`));
      const kept = await b.rules.list('c3');
      assert.equal(kept.length, 50, 'the oldest go first');
      assert.equal(kept[0]!.rule.kind === 'exact' && kept[0]!.rule.command, 'cmd 10');
      assert.equal(await b.rules.clear('c1'), 1);
      assert.deepEqual(await a.rules.list('c1'), []);
      assert.equal(await a.rules.clear('c1'), 0);
      await a.close();
      await b.close();
    });

    it('State: grants and pairing codes are shared by clients; a code is redeemed once; each grant and removal is audited', async () => {
      const rig = await rigFactory();
      const bridge = openState(rig.open(), { logger: silentLogger, now: () => 5_000 });
      const cli = openState(rig.open(), { logger: silentLogger, now: () => 6_000 });
      const admin = { platform: 'cli', id: 'root' };
      assert.equal(await cli.grants.add('slack:U0NEW', admin), 'added');
      assert.equal(await bridge.grants.hasAny(['discord:1', 'slack:U0NEW']), true, 'the other client sees it at once');
      assert.equal(await bridge.grants.add('slack:U0NEW', admin), 'already');
      assert.deepEqual(await bridge.grants.list(), [{ by: 'cli:root', at: 6_000, via: 'cli', identity: 'slack:U0NEW' }]);
      const code = (await bridge.grants.pairingCode('slack:U0PAIR', { name: 'pat' }))!;
      assert.match(code, /^[A-HJKMNP-Z2-9]{6}$/);
      assert.deepEqual(await cli.grants.peek(code.toLowerCase()), { identity: 'slack:U0PAIR', name: 'pat', at: 5_000 });
      const redeemed = await Promise.all([cli.grants.redeem(code), bridge.grants.redeem(code)]);
      assert.deepEqual(redeemed.filter(Boolean).map((r) => r!.identity), ['slack:U0PAIR'], 'once');
      assert.equal(await cli.grants.remove('slack:U0NEW', admin), true);
      assert.equal(await bridge.grants.hasAny(['slack:U0NEW']), false);
      assert.equal(await cli.grants.remove('slack:U0NEW', admin), false);
      const trail = await readAudit(bridge.store, 0);
      assert.deepEqual(trail.map((e) => [e.kind, 'identity' in e ? e.identity : '']), [['grant', 'slack:U0NEW'], ['grant-removed', 'slack:U0NEW']]);
      await bridge.close();
      await cli.close();
    });

    it('State: audit entries are appended once (a replayed id keeps the record) and read back in time order by any client', async () => {
      const rig = await rigFactory();
      const a = openState(rig.open(), { logger: silentLogger });
      const b = openState(rig.open(), { logger: silentLogger });
      const by = { platform: 'slack', id: 'U1' };
      assert.equal(await a.audit.append({ kind: 'rule-cleared', id: 'x-2', at: 20, conversation: 'c', count: 1, by, why: 'reset' }), true);
      assert.equal(await a.audit.append({ kind: 'rule-added', id: 'x-1', at: 10, conversation: 'c', rule: 'Bash(ls)', setBy: by }), true);
      assert.equal(await b.audit.append({ kind: 'rule-added', id: 'x-1', at: 10, conversation: 'c', rule: 'Bash(rm -rf ~)', setBy: by }), false);
      assert.deepEqual((await b.audit.since(0)).map((e) => e.id), ['x-1', 'x-2']);
      assert.deepEqual((await b.audit.since(15)).map((e) => e.id), ['x-2']);
      const first = (await b.audit.since(0))[0]!;
      assert.equal(first.kind === 'rule-added' && first.rule, 'Bash(ls)');
      await a.close();
      await b.close();
    });

    it('Keyv records: stored as the bare value the store held before, in both directions; a Keyv namespace is the key prefix inside kv', async () => {
      const rig = await rigFactory();
      const st = openState(rig.open(), { logger: silentLogger, now: () => 9 });
      const raw = rig.open();
      const rule: StoredRule = { v: 2, rule: { kind: 'exact', tool: 'Bash', command: 'ls' }, scope: { kind: 'thread' }, setBy: { platform: 'slack', id: 'U1' }, setAt: 1 };
      // Written as the bridge wrote them before Keyv: read through it.
      await raw.set('kv', 'rules:slack:T1:C1:1.1', [rule]);
      await raw.set('kv', 'access:slack:UOLD', { by: 'cli:root', at: 1, via: 'cli' });
      await raw.set('session', 'slack:T1:C1:1.1', { session_id: 'old', profile: '/p', updated_at: 1 });
      await raw.set('kv', 'session-reset:slack:T1:C1:1.1', 'mark-1');
      assert.deepEqual(await st.rules.list('slack:T1:C1:1.1'), [rule]);
      assert.equal(await st.grants.hasAny(['slack:UOLD']), true);
      assert.equal((await st.sessions.get('slack:T1:C1:1.1'))?.session_id, 'old');
      assert.equal(await st.resets.current('slack:T1:C1:1.1'), 'mark-1');
      // Written through Keyv: the store holds the bare value under the same key (no Keyv envelope).
      await st.grants.add('slack:UNEW', { platform: 'cli', id: 'root' });
      await st.sessions.set('slack:T1:C2:', { sessionId: 'new', profile: '/p' });
      await st.rules.add('slack:T1:C2:', rule);
      await st.resets.reset('slack:T1:C2:', async () => undefined);
      assert.deepEqual(await raw.get('kv', 'access:slack:UNEW'), { by: 'cli:root', at: 9, via: 'cli' });
      assert.deepEqual(await raw.get('session', 'slack:T1:C2:'), { session_id: 'new', profile: '/p', updated_at: 9 });
      assert.deepEqual(await raw.get('kv', 'rules:slack:T1:C2:'), [rule]);
      assert.match(String(await raw.get('kv', 'session-reset:slack:T1:C2:')), /^[0-9a-f-]{36}$/);
      // One key, two namespaces: two records.
      assert.deepEqual(await st.rules.list('slack:UNEW'), [], 'the rules of "slack:UNEW" are not its grant');
      assert.equal(await st.grants.hasAny(['slack:T1:C2:']), false);
      assert.equal(await st.resets.current('slack:UNEW'), '');
      await st.close();
      await raw.close();
    });

    it('Keyv records: a key that already spells its Keyv namespace is refused (logged), not read as another record', async () => {
      const rig = await rigFactory();
      const cap = logCapture('error');
      const st = openState(rig.open(), { logger: cap.logger });
      await st.grants.add('slack:U1', { platform: 'cli', id: 'root' });
      assert.equal(await st.grants.hasAny(['access:slack:U1']), false, 'Keyv would have read the grant of slack:U1');
      assert.equal(await st.rules.add('rules:c1', { v: 2, rule: { kind: 'exact', tool: 'Bash', command: 'ls' }, scope: { kind: 'thread' }, setBy: { platform: 'slack', id: 'U1' }, setAt: 1 }), false);
      assert.deepEqual(await st.rules.list('c1'), [], 'nothing written to the rules of c1');
      assert.ok(cap.lines.some((l) => /refused a key that spells its own prefix/.test(String(l.msg)) && l.key === 'access:slack:U1'));
      await st.close();
    });

    it("Keyv records: a TTL is the store's (its clock), not Keyv's Date.now", async (t) => {
      const rig = await rigFactory();
      const st = openState(rig.open(), { logger: silentLogger });
      const code = (await st.grants.pairingCode('slack:UPAIR'))!;
      const tree = { repo: '/r', gitDir: '/r/.git', path: '/w', branch: 'turnbridge/1', base: 'f00d', baseRef: 'HEAD', idleDays: 1, createdAt: 1, usedAt: 1 };
      await st.worktrees.put('k', tree);
      // Keyv's own clock two hours on, past the code's hour: the store's clock has not moved, so it is live.
      t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
      t.mock.timers.tick(2 * 3600_000);
      assert.equal((await st.grants.peek(code))?.identity, 'slack:UPAIR');
      t.mock.timers.reset();
      await rig.expire('kv', `access-pair:${code}`);
      assert.equal(await st.grants.peek(code), undefined, "expired by the store's clock");
      assert.equal(await st.grants.redeem(code), undefined);
      assert.deepEqual(await st.worktrees.get('k'), tree, 'a record without a TTL stays');
      await st.close();
    });

    it('Keyv records on a sealed backend: a record forged, unsigned or moved from another key reads as absent', async (t) => {
      const rig = await rigFactory();
      if (!rig.sealed) {
        t.skip('this backend does not seal its records');
        return;
      }
      const { sealed } = rig;
      const st = openState(rig.open(), { logger: silentLogger });
      const admin = { platform: 'cli', id: 'root' };
      await st.grants.add('slack:UREAL', admin);
      const genuine = (await sealed.readRaw('kv', 'access:slack:UREAL'))!;
      assert.match(genuine, /"m":/, 'sealed');
      // Moved: a genuine grant copied to another identity's key.
      await sealed.writeRaw('kv', 'access:slack:UEVIL', genuine);
      // Unsigned: the bare JSON an older or foreign writer would put there.
      await sealed.writeRaw('kv', 'access:slack:UBARE', JSON.stringify({ by: 'cli:root', at: 1, via: 'cli' }));
      // Forged: the sealed shape with a MAC made without the key.
      await sealed.writeRaw('session', 'slack:T1:C1:1.1', JSON.stringify({ j: JSON.stringify({ session_id: 'evil', profile: '/p', updated_at: 1 }), m: '00'.repeat(32) }));
      await sealed.writeRaw('kv', 'rules:slack:T1:C1:1.1', JSON.stringify({ j: '[]', m: 'ab' }));
      assert.equal(await st.grants.hasAny(['slack:UEVIL']), false);
      assert.equal(await st.grants.hasAny(['slack:UBARE']), false);
      assert.equal(await st.sessions.get('slack:T1:C1:1.1'), undefined);
      assert.deepEqual(await st.rules.list('slack:T1:C1:1.1'), []);
      assert.equal(await st.grants.hasAny(['slack:UREAL']), true, 'the genuine one still reads');
      assert.deepEqual(sealed.rejected.map((r) => `${r.ns}/${r.key} ${r.reason}`), [
        'kv/access:slack:UEVIL forged', 'kv/access:slack:UBARE unsigned', 'session/slack:T1:C1:1.1 forged', 'kv/rules:slack:T1:C1:1.1 forged',
      ]);
      await st.close();
    });

    it("State: a turn's ledger: queued (with the caller's claims) in one commit, its journal, started, its agent, finished", async () => {
      const rig = await rigFactory();
      const st = openState(rig.open(), { logger: silentLogger, holder: 'r1', now: () => 3 });
      const peek = openState(rig.open(), { logger: silentLogger });
      const { attachments, ...received } = queued('t9', 'hello').message;
      const turn = st.ledger.forTurn({ id: 't9', key: 'slack:T1:C9:', msg: { ...received, attachmentRefs: attachments }, enqueuedAt: 2, marker: 'stop-9' });
      assert.deepEqual(await turn.queued([st.writes.authorClaim('slack:T1:C9:', 'slack:U1')]), [true]);
      assert.deepEqual((await peek.queue.list('slack:T1:C9:')).map((q) => [q.turnId, q.holder, q.message.text]), [['t9', 'r1', 'hello']]);
      const rec = await peek.ledger.get('t9');
      assert.equal(rec?.kind === 'reply' && `${rec.turn} ${rec.marker} ${rec.message.attachments.length}`, 'queued stop-9 1');
      assert.equal(await peek.conversations.author('slack:T1:C9:'), 'slack:U1');
      await turn.started();
      assert.deepEqual(await peek.queue.list('slack:T1:C9:'), []);
      assert.equal((await peek.ledger.get('t9'))?.kind === 'reply' && ((await peek.ledger.get('t9')) as { turn: string }).turn, 'running');
      turn.agent(4242, 'start-1');
      await turn.started(); // one chain per turn: what was asked before it has landed
      assert.deepEqual((await peek.ledger.all()).map((r) => `${r.kind}:${r.id}`).sort(), ['agent:agent:t9', 'reply:t9']);
      turn.agentEnded();
      await turn.finished();
      assert.deepEqual(await peek.ledger.all(), []);
      await st.close();
      await peek.close();
    });
  });
}
