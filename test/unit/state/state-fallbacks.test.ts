/**
 * The state's one rule (state.ts): no method throws. On a store that fails every call, or one
 * that never answers, each method answers what it says a failure answers, and the failure is in
 * the log.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { openState, type StateStore } from '../../../src/state/index.js';
import { logCapture } from '../../fakes/log-capture.js';

function failing(how: () => Promise<never>): StateStore {
  return {
    backend: 'memory', get: how, set: how, setIfNotExists: how, setIfNoneExist: how, delete: how, entries: how,
    push: how, items: how, removeItem: how, lists: how, write: how, close: async () => {},
  };
}

const person = { platform: 'slack', id: 'U1' };

async function everyMethod(store: StateStore, opTimeoutMs?: number) {
  const cap = logCapture('error');
  const st = openState(store, { logger: cap.logger, ...(opTimeoutMs ? { opTimeoutMs } : {}) });
  const answers = {
    session: await st.sessions.get('c'),
    sessionSet: await st.sessions.set('c', { sessionId: 's', profile: '/p' }),
    sessionDelete: await st.sessions.delete('c'),
    mark: await st.resets.current('c'),
    author: await st.conversations.author('c'),
    noticeForgotten: await st.conversations.forgetNotice('c', 'n'),
    rules: await st.rules.list('c'),
    ruleAdded: await st.rules.add('c', { v: 2, rule: { kind: 'exact', tool: 'Bash', command: 'ls' }, scope: { kind: 'thread' }, setBy: person, setAt: 1 }),
    granted: await st.grants.hasAny(['slack:U1']),
    grantAdded: await st.grants.add('slack:U1', person),
    grants: await st.grants.list(),
    code: await st.grants.pairingCode('slack:U1'),
    redeemed: await st.grants.redeem('ABCDEF'),
    audited: await st.audit.append({ kind: 'grant-removed', identity: 'slack:U1', by: person }),
    claim: await st.events.claim(['slack:Ev1'], 1000),
    claimed: await st.events.claimed('slack:Ev1'),
    owns: await st.threads.owns('c'),
    queue: await st.queue.list('c'),
    queues: await st.queue.conversations(),
    unqueued: await st.queue.remove('c', 't'),
    ledger: await st.ledger.all(),
    record: await st.ledger.get('t'),
    forgotten: await st.ledger.remove('t'),
    rerun: await st.reruns.get('r'),
    rerunTaken: await st.reruns.take('r', 1000),
    written: await st.write([st.writes.authorClaim('c', 'slack:U1')]),
    queued: await st.ledger.forTurn({ id: 't', key: 'c', msg: { platform: 'slack', conversation: { space: 'T', channel: 'C', thread: '' }, user: { id: 'U1' }, text: 'x', eventId: 'e', receivedAt: 0 }, enqueuedAt: 0 }).queued(),
  };
  return { answers, lines: cap.lines };
}

const fallbacks = {
  session: undefined, sessionSet: false, sessionDelete: false, mark: '', author: undefined, noticeForgotten: false,
  rules: [], ruleAdded: false, granted: false, grantAdded: 'failed', grants: undefined, code: undefined, redeemed: undefined, audited: false,
  claim: true, claimed: false, owns: false, queue: [], queues: [], unqueued: false, ledger: [], record: undefined, forgotten: false,
  rerun: undefined, rerunTaken: false, written: undefined, queued: undefined,
};

describe('state: no method throws', () => {
  it('a store that fails: each method answers its fallback (a claim of an event: true), and logs', async () => {
    const { answers, lines } = await everyMethod(failing(async () => { throw new Error('disk gone'); }));
    assert.deepEqual(answers, fallbacks);
    assert.ok(lines.some((l) => /store failed; the turn goes on without a stored session/.test(String(l.msg))));
    assert.ok(lines.some((l) => /store failed; treating the person as not granted/.test(String(l.msg))));
    assert.ok(lines.some((l) => /store failed; the entry is in the log only/.test(String(l.msg))));
    // A Keyv record's failure is its adapter's error event: logged once, with the call and the key, and its cause.
    assert.deepEqual(lines.filter((l) => l.op === 'get session').map((l) => [l.key, l.msg, (l.err as { message?: string } | undefined)?.message]), [['c', 'store failed; the turn goes on without a stored session', 'disk gone']]);
  });

  it('a store that never answers: the same, once the time bound passed', async () => {
    const { answers, lines } = await everyMethod(failing(() => new Promise<never>(() => {})), 5);
    assert.deepEqual(answers, fallbacks);
    assert.ok(lines.some((l) => /took longer than 5 ms/.test(JSON.stringify(l))));
  });
});
