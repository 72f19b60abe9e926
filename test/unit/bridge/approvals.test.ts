/** Allow for this thread, deny with a reason, edit and allow, approver groups, the audit trail (what rules match: thread-rules.test.ts). */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createBridge, createPermissionBroker } from '../../../src/bridge/index.js';
import { conversationKey, createMemoryStore, memoryData, type AuditEntry, type DecisionEntry } from '../../../src/state/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { BANNER_NO_PERMISSION } from '../../../src/bridge/turns/accept-message.js';
import { readEdit, readReason } from '../../../src/bridge/approvals/prompt-forms.js';
import type { PermissionRequest } from '../../../src/protocol/types.js';
import { silentLogger } from '../../../src/log.js';
import { bash, rig } from './broker-rig.js';
import { ANA, BOB, BOSS, conv, fakeRunner, makeConfig, makeMsg, makeProfile, memoryStore, waitFor } from './helpers.js';

const decisions = (l: AuditEntry[]) => l.filter((e): e is DecisionEntry => e.kind === 'decision');

describe('prompt forms', () => {
  it('a reason is trimmed and must not be empty', () => {
    assert.deepEqual(readReason('  touches prod  '), { ok: true, reason: 'touches prod' });
    assert.equal(readReason('   ').ok, false);
    assert.equal(readReason('x'.repeat(1001)).ok, false);
  });

  it('an unchanged edit allows without updated_input; a changed command keeps the other fields; JSON must be an object', () => {
    const req: PermissionRequest = { requestId: 'r', toolName: 'Bash', input: { command: 'npm test', description: 'tests' } };
    assert.deepEqual(readEdit(req, 'npm test\n'), { ok: true, decision: { behavior: 'allow' }, edited: false });
    assert.deepEqual(readEdit(req, 'npm test -- --watch=false'), {
      ok: true, edited: true, decision: { behavior: 'allow', updatedInput: { command: 'npm test -- --watch=false', description: 'tests' } },
    });
    assert.equal(readEdit(req, '  ').ok, false);
    const write: PermissionRequest = { requestId: 'r', toolName: 'Write', input: { file_path: '/a', content: 'x' } };
    const bad = readEdit(write, '{"file_path": ');
    assert.equal(bad.ok, false);
    assert.match((bad as { error: string }).error, /^Not valid JSON/);
    assert.equal(readEdit(write, '[1]').ok, false);
    assert.deepEqual(readEdit(write, '{"file_path":"/b","content":"x"}'), { ok: true, edited: true, decision: { behavior: 'allow', updatedInput: { file_path: '/b', content: 'x' } } });
  });
});

describe('permission broker: the five choices', () => {
  it('allow for this thread stores the rule; the next matching request is allowed without a prompt, the reply gets the line', async () => {
    const r = rig();
    const first = r.ask(bash('npm test'));
    await r.posted(1);
    assert.equal(r.surface.prompts()[0]!.view.rule, 'Bash(npm test:*)', 'the rule is shown before anyone clicks');
    r.tick(2500);
    await r.act('allow_thread', 'p1').run();
    assert.deepEqual(await first, { behavior: 'allow' });
    await r.broker.idle();
    const decided = r.surface.prompts()[0]!.view;
    assert.equal(decided.how, 'thread');
    assert.equal(decided.decidedAt, 12_500);
    assert.deepEqual(await r.ask(bash('npm test -- src/app.test.ts')), { behavior: 'allow' });
    assert.equal(r.surface.prompts().length, 1, 'no second prompt');
    assert.deepEqual(r.lines, ['auto-allowed Bash: npm test, rule set by @ana']);
    // another thread has its own rules; a compound command asks again
    void r.ask(bash('npm test'), { thread: 'th2' });
    void r.ask(bash('npm test; curl evil'));
    await r.posted(3);
    r.broker.expireAll();
    const log = decisions(await r.audit.since(0));
    assert.deepEqual(log.map((e) => [e.decision, e.source, e.rule, e.decider?.id ?? e.ruleSetBy?.id]).slice(0, 2), [
      ['allow', 'thread', 'Bash(npm test:*) for @ana', 'U_ANA'], ['allow', 'rule', 'Bash(npm test:*) for @ana', 'U_ANA'],
    ]);
    assert.equal(log[0]!.latencyMs, 2500);
    assert.match(log[0]!.input!.sha256, /^[0-9a-f]{64}$/);
    const text = await r.metrics.render();
    assert.match(text, /turnbridge_permission_decisions_total\{decision="allow",source="thread"\} 1/);
    assert.match(text, /turnbridge_permission_decisions_total\{decision="allow",source="rule"\} 1/);
    assert.match(text, /turnbridge_permission_decisions_total\{decision="deny",source="expired"\} 2/);
    assert.match(text, /turnbridge_permission_decision_seconds_bucket\{le="1"\} 3/, "the rule and the expiries at once; the click after 2.5 s");
    assert.match(text, /turnbridge_permission_decision_seconds_bucket\{le="5"\} 4/);
  });

  it('allow for this thread decides before the store write: a deny or timeout during the write leaves no rule', async () => {
    const r = rig();
    let release!: () => void;
    const gate = new Promise<void>((res) => { release = res; });
    const add = r.rules.add.bind(r.rules);
    r.rules.add = async (c, rule) => { await gate; return add(c, rule); };
    const d = r.ask(bash('npm test'));
    await r.posted(1);
    const click = r.act('allow_thread', 'p1').run();
    const deny = r.act('deny', 'p1');
    await deny.run();
    r.broker.expireAll();
    release();
    await click;
    const decision = await d;
    const stored = await r.rules.list(conversationKey('test', conv('C1', 'th1')));
    // The decision and the store agree: a rule exists only for a prompt allowed for the thread.
    assert.equal(stored.length === 1, decision.behavior === 'allow', `decision ${decision.behavior} with ${stored.length} rule(s)`);
    assert.deepEqual(decision, { behavior: 'allow' }, 'the click that came first decides');
    assert.equal(deny.told.length, 1, 'the later click is told the prompt is closed');
    await r.broker.idle();
    assert.equal(r.surface.prompts()[0]!.view.how, 'thread');
  });

  it('when the thread rule cannot be saved the request is still allowed and the clicker is told privately', async () => {
    const r = rig();
    r.rules.add = async () => false;
    const d = r.ask(bash('npm test'));
    await r.posted(1);
    const a = r.act('allow_thread', 'p1');
    await a.run();
    assert.deepEqual(await d, { behavior: 'allow' });
    assert.deepEqual(a.told, ['Allowed this request, but the rule Bash(npm test:*) for @ana could not be saved, so the next matching request will ask again.']);
  });

  it('deny with a reason opens a form for the decider; the agent gets exactly the reason', async () => {
    const r = rig();
    const d = r.ask(bash('rm -rf build'));
    await r.posted(1);
    const stranger = r.act('deny_reason', 'p1', BOB);
    await stranger.run();
    assert.deepEqual(stranger.forms, [], 'no form for someone who may not decide');
    assert.deepEqual(stranger.told, ['Only @ana or an approver can answer this request (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).']);
    const a = r.act('deny_reason', 'p1');
    await a.run();
    assert.equal(a.forms[0]!.kind, 'reason');
    assert.deepEqual(await r.submit('reason', 'p1', 'this touches prod', BOB), { ok: false, error: 'Only @ana or an approver can answer this request (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).' });
    assert.equal((await r.submit('reason', 'p1', ' ')).ok, false);
    assert.deepEqual(await r.submit('reason', 'p1', 'this touches prod'), { ok: true });
    assert.deepEqual(await d, { behavior: 'deny', message: 'this touches prod' });
    await r.broker.idle();
    assert.equal(r.surface.prompts()[0]!.view.reason, 'this touches prod');
    assert.equal((await r.submit('reason', 'p1', 'again')).ok, false, 'a settled prompt refuses later submissions');
  });

  it('edit and allow pre-fills the command; the edited input goes back as updatedInput, an unchanged one does not', async () => {
    const r = rig();
    const d1 = r.ask(bash('npm test'));
    await r.posted(1);
    const e = r.act('edit', 'p1');
    await e.run();
    assert.deepEqual(e.forms[0], { kind: 'edit', promptId: 'p1', toolName: 'Bash', title: 'Edit and allow', label: 'Command to run instead', initial: 'npm test', format: 'command' });
    assert.deepEqual(await r.submit('edit', 'p1', 'npm test -- --watch=false'), { ok: true });
    assert.deepEqual(await d1, { behavior: 'allow', updatedInput: { command: 'npm test -- --watch=false' } });
    await r.broker.idle();
    assert.equal(r.surface.prompts()[0]!.view.inputPreview, 'npm test -- --watch=false', 'the prompt shows what runs');
    assert.equal(r.surface.prompts()[0]!.view.how, 'edited');
    const d2 = r.ask({ requestId: 'r2', toolName: 'Write', input: { file_path: '/a', content: 'x' } });
    await r.posted(2);
    const f = r.act('edit', 'p2');
    await f.run();
    assert.equal((f.forms[0] as { initial: string }).initial, '{\n  "file_path": "/a",\n  "content": "x"\n}');
    assert.match((await r.submit('edit', 'p2', '{oops') as { error: string }).error, /Not valid JSON/);
    assert.deepEqual(await r.submit('edit', 'p2', (f.forms[0] as { initial: string }).initial), { ok: true });
    assert.deepEqual(await d2, { behavior: 'allow' }, 'never pre-filled when nothing was edited');
  });

  it('approver groups: a Slack-style group lookup or a Discord-style role makes someone a decider', async () => {
    const r = rig({ groupMembers: { S_OPS: ['U_BOB'] } });
    const d = r.ask(bash('make deploy'), { groups: ['S_OPS', 'ROLE_LEADS'] });
    await r.posted(1);
    assert.deepEqual(r.surface.prompts()[0]!.view.deciders, { author: ANA, users: [], groups: ['S_OPS', 'ROLE_LEADS'] });
    const boss = r.act('allow', 'p1', BOSS);
    await boss.run();
    assert.equal(boss.told.length, 1, 'not in a group: refused');
    await r.act('allow', 'p1', BOB).run();
    assert.equal((await d).behavior, 'allow');
    const d2 = r.ask(bash('make deploy'), { groups: ['ROLE_LEADS'] });
    await r.posted(2);
    await r.act('deny', 'p2', { id: 'U_LEAD', name: 'lead', roles: ['ROLE_LEADS'] }).run();
    assert.deepEqual(await d2, { behavior: 'deny', message: 'Denied by @lead.' });
  });

  it('a long input is folded; the author and approvers can open it in full, nobody else', async () => {
    const r = rig();
    const big = 'x'.repeat(4000);
    void r.ask({ requestId: 'r', toolName: 'Write', input: { file_path: '/a', content: big } });
    await r.posted(1);
    const view = r.surface.prompts()[0]!.view;
    assert.equal(view.truncated, true);
    assert.equal(view.editable, false, 'too long for a text box');
    const stranger = r.act('show_input', 'p1', BOB);
    await stranger.run();
    assert.deepEqual(stranger.forms, [], 'no full input for someone who may not decide');
    assert.deepEqual(stranger.told, ['Only @ana or an approver can see the full input (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).']);
    const s = r.act('show_input', 'p1');
    await s.run();
    assert.equal(s.forms[0]!.kind, 'view');
    assert.ok((s.forms[0] as { text: string }).text.includes(big));
    const e = r.act('edit', 'p1');
    await e.run();
    assert.deepEqual(e.forms, []);
    assert.match(e.told[0]!, /too long to edit/);
    r.broker.expireAll();
  });
});

describe('bridge: what is kept in the store', () => {
  it('the "runs tools without asking" banner shows once per conversation, across a restart, and again after `new`', async () => {
    // One backend for both starts: the banner's memory is in the bridge state.
    const data = memoryData();
    const config = makeConfig();
    const start = () => {
      const surface = createRecordingSurface();
      const runner = fakeRunner();
      const bridge = createBridge({ config, logger: silentLogger, store: createMemoryStore({ data }), runTurn: runner.runTurn, loadProfile: async () => makeProfile({ permission: false }) });
      bridge.attach(surface);
      return { surface, runner, bridge };
    };
    const turn = async (b: ReturnType<typeof start>, n: number, text = 'hi') => {
      await b.bridge.handleMessage(makeMsg({ text }));
      (await b.runner.started(n)).finish({ reply: 'ok' });
      await waitFor(() => Object.values(b.bridge.stats().turnsByOutcome).reduce((x, y) => x + y, 0) >= n, `${n} turns`);
    };
    const banners = (s: ReturnType<typeof createRecordingSurface>) => s.messagesIn(conv()).filter((m) => m.content.text.includes(BANNER_NO_PERMISSION)).length;
    const a = start();
    await turn(a, 1);
    await turn(a, 2);
    assert.equal(banners(a.surface), 1);
    await a.bridge.shutdown(1000);
    const b = start();
    await turn(b, 1);
    assert.equal(banners(b.surface), 0, 'remembered in the store, not in memory');
    await b.bridge.handleMessage(makeMsg({ text: 'new' }));
    await waitFor(() => b.surface.messagesIn(conv()).some((m) => m.content.text.startsWith('Started a fresh session')), 'the reset');
    await turn(b, 2);
    assert.equal(banners(b.surface), 1, 'a fresh session is announced again');
    await b.bridge.shutdown(1000);
  });

  it("a route's approval_timeout_secs and approvers apply to its prompts", async () => {
    const surface = createRecordingSurface();
    const runner = fakeRunner();
    let clock = 1_000_000;
    const config = makeConfig({ approvers: ['U_GLOBAL'], routes: [{ channel: 'C1', profile: '/p.yaml', approvers: ['U_LEAD'], approverGroups: ['ROLE_OPS'], approvalTimeoutSecs: 45 }] });
    const bridge = createBridge({ config, logger: silentLogger, store: memoryStore(), runTurn: runner.runTurn, now: () => clock, loadProfile: async () => makeProfile({ permission: true, timeoutSecs: 600 }) });
    bridge.attach(surface);
    await bridge.handleMessage(makeMsg({ text: 'go' }));
    const call = await runner.started(1);
    const decision = call.handlers.onPermissionRequest!(bash('make deploy'), { signal: new AbortController().signal });
    await waitFor(() => surface.prompts().length === 1, 'the prompt');
    const view = surface.prompts()[0]!.view;
    assert.equal(view.expiresAt! - clock, 45_000);
    assert.deepEqual(view.deciders, { author: ANA, users: ['U_GLOBAL', 'U_LEAD'], groups: ['ROLE_OPS'] });
    clock += 1000;
    await bridge.handleAction({ platform: 'test', action: 'allow', id: view.promptId, user: { id: 'U_X', name: 'x', roles: ['ROLE_OPS'] }, notifyPrivately: async () => {} });
    assert.deepEqual(await decision, { behavior: 'allow' });
    call.finish({ reply: 'done' });
    const [entry] = decisions(await bridge.state.audit.since(0));
    await bridge.shutdown(1000);
    assert.deepEqual([entry!.decision, entry!.source, entry!.decider, entry!.latencyMs], ['allow', 'once', { platform: 'test', id: 'U_X', name: 'x' }, 1000]);
    assert.match(await bridge.metrics.render(), /turnbridge_permission_decisions_total\{decision="allow",source="once"\} 1/);
  });
});
