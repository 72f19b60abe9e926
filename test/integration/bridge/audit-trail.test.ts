/** The audit trail: what a decision record holds, rules added and cleared, and that records are never replaced. */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createBridge, createPermissionBroker } from '../../../src/bridge/index.js';
import { AUDIT_INPUT_MAX, AUDIT_NS, auditedInput, createSqliteStore, openState, readAudit, type AuditEntry, type DecisionEntry, type StateStore } from '../../../src/state/index.js';
import { createDelivery } from '../../../src/delivery/index.js';
import type { PermissionRequest } from '../../../src/protocol/types.js';
import { silentLogger } from '../../../src/log.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { logCapture } from '../../fakes/log-capture.js';
import { redisStateStore, startRedisServer } from '../../fakes/redis-server.js';
import { ANA, BOB, conv, fakeRunner, makeConfig, makeMsg, makeProfile, memoryStore, waitFor } from '../../unit/bridge/helpers.js';

const decisions = (l: AuditEntry[]) => l.filter((e): e is DecisionEntry => e.kind === 'decision');
const bash = (command: string): PermissionRequest => ({ requestId: 'r', toolName: 'Bash', description: 'Run', input: { command } });

function rig() {
  let n = 0;
  let clock = 50_000;
  const store = createSqliteStore({ file: ':memory:' });
  const audit = openState(store, { logger: silentLogger, now: () => clock }).audit;
  const surface = createRecordingSurface();
  const broker = createPermissionBroker({ approvers: ['U_BOB'], logger: silentLogger, idFactory: () => `p${++n}`, audit, now: () => clock });
  const delivery = createDelivery(surface);
  const ask = (request: PermissionRequest) => broker.request({
    turnId: 't1', surface, post: (render) => delivery.prompt(conv('C1', 'th1'), render), conversation: conv('C1', 'th1'), author: ANA, request,
    signal: new AbortController().signal, timeoutMs: 60_000, log: silentLogger,
  });
  const posted = (k: number) => waitFor(() => surface.prompts().length >= k, `${k} prompts`);
  return { broker, audit, store, ask, posted, tick: (ms: number) => (clock += ms) };
}

describe('audit trail: decision records', () => {
  it('a deny with a reason keeps the decider (platform, id, name), the input and the reason', async () => {
    const r = rig();
    const d = r.ask(bash('rm -rf ~/proj'));
    await r.posted(1);
    r.tick(1500);
    assert.deepEqual(await r.broker.handleFormSubmit({ platform: 'test', kind: 'reason', id: 'p1', value: 'not on my laptop', user: BOB, notifyPrivately: async () => {} }), { ok: true });
    assert.equal((await d).behavior, 'deny');
    const [e] = decisions(await r.audit.since(0));
    assert.deepEqual(
      { decider: e!.decider, input: e!.input, decision: e!.decision, source: e!.source, reason: e!.reason, latencyMs: e!.latencyMs, tool: e!.tool, conversation: e!.conversation },
      {
        decider: { platform: 'test', id: 'U_BOB', name: 'bob' }, input: auditedInput({ command: 'rm -rf ~/proj' }), decision: 'deny', source: 'reason',
        reason: 'not on my laptop', latencyMs: 1500, tool: 'Bash', conversation: 'test:T1:C1:th1',
      },
    );
    assert.equal(e!.input!.text, '{"command":"rm -rf ~/proj"}');
    assert.match(e!.input!.sha256, /^[0-9a-f]{64}$/);
  });

  it('a timeout keeps what the agent was told; an edit keeps the input that ran', async () => {
    const r = rig();
    const first = r.ask(bash('make deploy'));
    await r.posted(1);
    r.broker.expireAll('the bridge restarted');
    await first;
    const second = r.ask({ requestId: 'r2', toolName: 'Write', input: { file_path: '/tmp/a', content: 'x' } });
    await r.posted(2);
    await r.broker.handleFormSubmit({ platform: 'test', kind: 'edit', id: 'p2', value: '{"file_path":"/tmp/b","content":"x"}', user: ANA, notifyPrivately: async () => {} });
    assert.equal((await second).behavior, 'allow');
    const [expired, edited] = decisions(await r.audit.since(0));
    assert.equal(expired!.reason, 'The bridge is shutting down.');
    assert.equal(expired!.decider, undefined);
    assert.deepEqual([edited!.source, edited!.input!.text, edited!.edited!.text, edited!.reason], ['edited', '{"content":"x","file_path":"/tmp/a"}', '{"content":"x","file_path":"/tmp/b"}', undefined]);
  });

  it('the info log line has the digest, not the input or the reason (message bodies only at debug)', async () => {
    const { logger, lines } = logCapture('info');
    const store = createSqliteStore({ file: ':memory:' });
    const audit = openState(store, { logger }).audit;
    const input = auditedInput({ content: 'API_KEY=sk-secret-123' });
    audit.record({ at: 1, platform: 'test', conversation: 'c', tool: 'Write', input, decision: 'deny', source: 'reason', reason: 'the key is sk-secret-123', latencyMs: 5, turnId: 't' });
    await audit.idle();
    const line = lines.find((l) => l.audit === 'permission_decision')!;
    assert.equal(line.inputSha256, input.sha256);
    assert.doesNotMatch(JSON.stringify(lines), /sk-secret-123/);
    assert.equal((decisions(await readAudit(store, 0))[0]!).reason, 'the key is sk-secret-123', 'the store keeps it');
  });

  it('an input over 4 KiB is kept cut at 4 KiB (on a character boundary) with the digest of all of it', () => {
    const big = { content: 'é'.repeat(5000) };
    const kept = auditedInput(big);
    assert.equal(kept.truncated, true);
    assert.ok(Buffer.byteLength(kept.text) <= AUDIT_INPUT_MAX && Buffer.byteLength(kept.text) > AUDIT_INPUT_MAX - 4, `${Buffer.byteLength(kept.text)} bytes`);
    assert.ok(!kept.text.includes('\uFFFD'), 'no half character at the cut');
    assert.equal(kept.sha256, auditedInput({ content: 'é'.repeat(5000) }).sha256);
    assert.notEqual(kept.sha256, auditedInput({ content: `${'é'.repeat(4999)}e` }).sha256, 'the digest covers what was cut off');
    assert.equal(auditedInput({ b: 1, a: 2 }).text, '{"a":2,"b":1}', 'keys sorted: the same input, the same digest');
  });
});

describe('audit trail: append-only', () => {
  async function appendTwice(store: StateStore): Promise<void> {
    const audit = openState(store, { logger: silentLogger }).audit;
    const first = { kind: 'grant', id: 'fixed-1', at: 1000, identity: 'slack:U0EVE', by: { platform: 'cli', id: 'root' }, via: 'cli' } as const;
    assert.equal(await audit.append(first), true);
    // Someone replays the id with other content: the record stays as it was.
    assert.equal(await audit.append({ ...first, identity: 'slack:U0MAL', by: { platform: 'slack', id: 'U0ADMIN' } }), false);
    const kept = await readAudit(store, 0);
    assert.deepEqual(kept, [first]);
    assert.deepEqual(await store.get(AUDIT_NS, 'fixed-1'), first);
  }

  it('a second write with the same id does not replace the record (SQLite)', async () => {
    const store = createSqliteStore({ file: ':memory:' });
    await appendTwice(store);
    await store.close();
  });

  it('a second write with the same id does not replace the record (a real redis-server)', async (t) => {
    const redis = await startRedisServer();
    t.after(() => redis.stop());
    const store = redisStateStore(redis.url, `audit-${process.pid}:`);
    t.after(() => store.close());
    await appendTwice(store);
  });

  it('fresh ids are unique and sort in the order the entries were made, within one millisecond too', async () => {
    const store = createSqliteStore({ file: ':memory:' });
    const audit = openState(store, { logger: silentLogger, now: () => 7 }).audit;
    for (let i = 0; i < 20; i++) audit.ruleCleared({ conversation: `c${i}`, count: i + 1, by: { platform: 'test', id: 'U_ANA' }, why: 'rules-clear' });
    await audit.idle();
    const got = await readAudit(store, 0);
    assert.deepEqual(got.map((e) => (e as { count: number }).count), Array.from({ length: 20 }, (_, i) => i + 1));
    assert.equal(new Set(got.map((e) => e.id)).size, 20);
  });
});

describe('audit trail: rules added and cleared in a conversation', () => {
  it('"Allow for this thread" records the rule and its setter; `rules clear` and `new` record the clearing', async () => {
    const surface = createRecordingSurface();
    const runner = fakeRunner();
    const bridge = createBridge({ config: makeConfig(), logger: silentLogger, store: memoryStore(), runTurn: runner.runTurn, loadProfile: async () => makeProfile({ permission: true }) });
    bridge.attach(surface);
    const allowForThread = async (n: number, command: string) => {
      await bridge.handleMessage(makeMsg({ text: `run ${command}` }));
      const call = await runner.started(n);
      const decision = call.handlers.onPermissionRequest!(bash(command), { signal: new AbortController().signal });
      await waitFor(() => surface.prompts().length === n, `prompt ${n}`);
      await bridge.handleAction({ platform: 'test', action: 'allow_thread', id: surface.prompts()[n - 1]!.view.promptId, user: ANA, notifyPrivately: async () => {} });
      assert.deepEqual(await decision, { behavior: 'allow' });
      call.finish({ reply: 'ok' });
    };
    const said = (start: string) => waitFor(() => surface.messagesIn(conv()).some((m) => m.content.text.startsWith(start)), start);
    await allowForThread(1, 'npm test');
    await bridge.handleMessage(makeMsg({ text: 'rules clear' }));
    await said('Removed 1 permission rule');
    await allowForThread(2, 'git status');
    await bridge.handleMessage(makeMsg({ text: 'new' }));
    await said('Started a fresh session');
    await bridge.handleMessage(makeMsg({ text: 'rules clear' }));
    await said('No permission rules in this thread.');
    const trail = await bridge.state.audit.since(0);
    await bridge.shutdown(1000);
    const rules = trail.filter((e) => e.kind !== 'decision').map((e) => {
      if (e.kind === 'rule-added') return [e.kind, e.rule, e.setBy.platform, e.setBy.id, e.conversation];
      if (e.kind === 'rule-cleared') return [e.kind, e.count, e.why, e.by.id, e.conversation];
      return [e.kind];
    });
    const key = 'test:T1:C1:';
    assert.deepEqual(rules, [
      ['rule-added', 'Bash(npm test:*) for @ana', 'test', 'U_ANA', key],
      ['rule-cleared', 1, 'rules-clear', 'U_ANA', key],
      ['rule-added', 'Bash(git status:*) for @ana', 'test', 'U_ANA', key],
      ['rule-cleared', 1, 'reset', 'U_ANA', key],
    ], 'an empty `rules clear` records nothing');
  });
});
