import type { BridgeConfig } from '../../../src/config/types.js';
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createBridge, type CreateBridgeOptions } from '../../../src/bridge/index.js';
import { TurnbridgeError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { conversationKey, type StateStore } from '../../../src/state/index.js';
import type { Profile } from '../../../src/profile/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { ANA, BOB, BOSS, click, conv, fakeRunner, makeConfig, makeMsg, makeProfile, memoryStore, waitFor } from './helpers.js';

function setup(opts: { config?: Partial<BridgeConfig>; profile?: Profile; loadProfile?: CreateBridgeOptions['loadProfile'] } = {}) {
  const surface = createRecordingSurface();
  const runner = fakeRunner();
  const store = memoryStore();
  const config = makeConfig(opts.config);
  const bridge = createBridge({
    config,
    logger: silentLogger,
    store,
    runTurn: runner.runTurn,
    loadProfile: opts.loadProfile ?? (async () => opts.profile ?? makeProfile({ permission: true })),
  });
  bridge.attach(surface);
  const outcomes = () => bridge.stats().turnsByOutcome;
  const ended = (n: number) => waitFor(() => Object.values(outcomes()).reduce((a, b) => a + b, 0) >= n, `${n} finished turns`);
  /** Messages of one conversation in post order, as the user sees them now. */
  const shown = (c = conv()) => surface.messagesIn(c).map((m) => m.content);
  return { surface, runner, store, bridge, outcomes, ended, shown };
}

describe('bridge turn lifecycle', () => {
  it('runs a turn: streams partials into one reply and finishes with the exact text', async () => {
    const { runner, bridge, ended, shown, surface } = setup();
    const msg = makeMsg({ text: 'hi there', source: { id: 'src1', conversation: conv() } });
    let cleaned = 0;
    msg.cleanup = async () => void cleaned++;
    await bridge.handleMessage(msg);
    const call = await runner.started(1);
    assert.equal(call.turn.message, 'hi there');
    assert.equal(call.turn.sessionId, undefined);
    assert.equal(call.turn.sessionName, 'test:T1:C1:');
    call.handlers.onPartial?.({ text: 'hel' });
    call.handlers.onPartial?.({ text: 'lo' });
    call.finish({ reply: '' });
    await ended(1);
    assert.equal(bridge.stats().turnsByOutcome.success, 1);
    const msgs = shown();
    assert.equal(msgs.length, 1);
    assert.equal(msgs[0]!.text, 'hello');
    assert.equal(msgs[0]!.stopActionId, undefined, 'no Stop control after the end');
    await waitFor(() => cleaned === 1, 'cleanup');
    assert.deepEqual(surface.reactions.map((r) => r.state), ['working', 'success']);
    await bridge.shutdown(1000);
  });

  it('runs the turns of one conversation one at a time, in arrival order', async () => {
    const { runner, bridge, ended, shown } = setup();
    for (const text of ['one', 'two', 'three']) await bridge.handleMessage(makeMsg({ text }));
    const first = await runner.started(1);
    assert.equal(runner.calls.length, 1);
    await waitFor(() => shown().length === 3, 'three replies');
    assert.deepEqual(shown().slice(1).map((c) => c.status), ['queued: position 1', 'queued: position 2']);
    first.finish({ reply: 'r1' });
    const second = await runner.started(2);
    assert.equal(second.turn.message, 'two');
    await waitFor(() => shown()[2]!.status === 'queued: position 1', 'third moves up');
    second.finish({ reply: 'r2' });
    (await runner.started(3)).finish({ reply: 'r3' });
    await ended(3);
    assert.deepEqual(runner.calls.map((c) => c.turn.message), ['one', 'two', 'three']);
    assert.deepEqual(shown().map((c) => c.text), ['r1', 'r2', 'r3']);
    assert.equal(runner.peak, 1);
    await bridge.shutdown(1000);
  });

  it('caps concurrent agents and shows queue positions that move', async () => {
    const { runner, bridge, ended, shown } = setup({ config: { maxConcurrent: 2 } });
    for (let i = 1; i <= 4; i++) await bridge.handleMessage(makeMsg({ conversation: conv(`C${i}`), text: `m${i}` }));
    await runner.started(2);
    await waitFor(() => shown(conv('C4')).length === 1, 'fourth reply');
    assert.equal(runner.calls.length, 2);
    assert.equal(shown(conv('C3'))[0]!.status, 'queued: position 1');
    assert.equal(shown(conv('C4'))[0]!.status, 'queued: position 2');
    assert.equal(bridge.stats().queued, 2);
    assert.equal(bridge.stats().activeAgents, 2);
    runner.calls[1]!.finish({ reply: 'done' });
    const third = await runner.started(3);
    assert.equal(third.turn.message, 'm3');
    await waitFor(() => shown(conv('C4'))[0]!.status === 'queued: position 1', 'fourth moves up');
    await waitFor(() => shown(conv('C3'))[0]!.status === 'working…', 'third shows working');
    for (const c of runner.calls) c.finish({ reply: 'x' });
    (await runner.started(4)).finish({ reply: 'x' });
    await ended(4);
    assert.equal(runner.peak, 2);
    const metrics = await bridge.metrics.render();
    assert.match(metrics, /turnbridge_turns_total\{outcome="success"\} 4/);
    assert.match(metrics, /turnbridge_active_agents 0/);
    assert.match(metrics, /turnbridge_queue_depth 0/);
    await bridge.shutdown(1000);
  });

  it('answers "busy" past the queue depth and drops duplicate event ids', async () => {
    const { runner, bridge, ended, shown } = setup({ config: { queueDepth: 1 } });
    const m1 = makeMsg({ text: 'a' });
    await bridge.handleMessage(m1);
    await bridge.handleMessage({ ...m1 });
    await bridge.handleMessage(makeMsg({ text: 'b' }));
    let cleaned = false;
    await bridge.handleMessage(makeMsg({ text: 'c', cleanup: async () => void (cleaned = true) }));
    await waitFor(() => shown().length === 3, 'busy notice');
    assert.match(shown()[2]!.text, /^Busy: 1 message is already waiting/);
    assert.ok(cleaned, 'a refused message is cleaned up');
    (await runner.started(1)).finish({ reply: '1' });
    (await runner.started(2)).finish({ reply: '2' });
    await ended(2);
    assert.deepEqual(runner.calls.map((c) => c.turn.message), ['a', 'b']);
    assert.match(await bridge.metrics.render(), /turnbridge_messages_rejected_total\{reason="busy"\} 1/);
    assert.match(await bridge.metrics.render(), /turnbridge_messages_rejected_total\{reason="duplicate"\} 1/);
    await bridge.shutdown(1000);
  });

  it('saves the session as soon as it is seen, resumes it, and `new` starts a fresh one', async () => {
    const { runner, bridge, ended, shown } = setup();
    await bridge.handleMessage(makeMsg({ text: 'first' }));
    const c1 = await runner.started(1);
    c1.handlers.onSessionId?.('s-1');
    await waitFor(() => runner.calls.length === 1, 'still running');
    let saved: unknown;
    await waitFor(() => {
      void bridge.state.sessions.get(conversationKey('test', conv())).then((r) => (saved = r?.session_id));
      return saved === 's-1';
    }, 'session saved mid-turn');
    c1.finish({ sessionId: 's-1', error: 'agent failed', exitCode: 1 });
    await ended(1);
    await bridge.handleMessage(makeMsg({ text: 'second' }));
    const c2 = await runner.started(2);
    assert.equal(c2.turn.sessionId, 's-1');
    c2.finish({ reply: 'ok', sessionId: 's-1' });
    await ended(2);
    await bridge.handleMessage(makeMsg({ text: '  /RESET ' }));
    await waitFor(() => shown().some((c) => /fresh session/.test(c.text)), 'reset confirmation');
    assert.equal(await bridge.state.sessions.get(conversationKey('test', conv())), undefined);
    await bridge.handleMessage(makeMsg({ text: 'third' }));
    const c3 = await runner.started(3);
    assert.equal(c3.turn.sessionId, undefined);
    c3.finish({ reply: 'ok' });
    await ended(3);
    assert.equal(runner.calls.length, 3, '`/reset` never reached the agent');
    await bridge.shutdown(1000);
  });

  it('a reset during a running turn keeps that turn from saving its session', async () => {
    const { runner, bridge, ended } = setup();
    await bridge.handleMessage(makeMsg({ text: 'first' }));
    const c1 = await runner.started(1);
    await bridge.handleMessage(makeMsg({ text: 'new' }));
    c1.finish({ sessionId: 'old' });
    await ended(1);
    assert.equal(await bridge.state.sessions.get(conversationKey('test', conv())), undefined);
    await bridge.shutdown(1000);
  });

  it('a reset stays seen by the running turn when a queued turn of the conversation ends first; later turns save again', async () => {
    const { runner, bridge, ended, shown } = setup();
    await bridge.handleMessage(makeMsg({ text: 'first' }));
    const c1 = await runner.started(1);
    await bridge.handleMessage(makeMsg({ text: 'second' }));
    await waitFor(() => shown()[1]?.stopActionId !== undefined, 'the queued reply');
    await bridge.handleMessage(makeMsg({ text: 'new' }));
    await waitFor(() => shown().some((c) => /fresh session/.test(c.text)), 'reset confirmation');
    await bridge.handleAction(click('stop', shown()[1]!.stopActionId!, ANA));
    await ended(1);
    assert.equal(runner.calls.length, 1, 'the queued turn never ran');
    c1.finish({ sessionId: 'old' });
    await ended(2);
    assert.equal(await bridge.state.sessions.get(conversationKey('test', conv())), undefined, 'the turn that read the session before the reset did not save it');
    await bridge.handleMessage(makeMsg({ text: 'third' }));
    const c3 = await runner.started(2);
    assert.equal(c3.turn.sessionId, undefined);
    c3.finish({ sessionId: 'fresh' });
    await ended(3);
    assert.equal((await bridge.state.sessions.get(conversationKey('test', conv())))?.session_id, 'fresh', 'a turn after the reset saves its session');
    await bridge.shutdown(1000);
  });

  it('Stop: author and approvers stop the turn, others are told privately, a finished turn says so', async () => {
    const { runner, bridge, ended, shown } = setup({ config: { approvers: ['test:ROLE_ADMIN'] } });
    await bridge.handleMessage(makeMsg({ text: 'long' }));
    const call = await runner.started(1);
    await waitFor(() => shown()[0]?.stopActionId !== undefined, 'stop control');
    const stopId = shown()[0]!.stopActionId!;
    const stranger = click('stop', stopId, BOB);
    await bridge.handleAction(stranger);
    assert.deepEqual(stranger.told, ['Only @ana or an approver can stop this turn (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).']);
    assert.equal(call.ended, false);
    const admin = click('stop', stopId, { ...BOSS, roles: ['ROLE_ADMIN'] });
    await bridge.handleAction(admin);
    assert.deepEqual(admin.told, []);
    await ended(1);
    assert.equal(bridge.stats().turnsByOutcome.stopped, 1);
    assert.match(shown()[0]!.text, /stopped by @boss/);
    const late = click('stop', stopId, ANA);
    await bridge.handleAction(late);
    assert.deepEqual(late.told, ['This turn has already finished.']);
    const unknown = click('stop', 'stop-unknown', ANA);
    await bridge.handleAction(unknown);
    assert.match(unknown.told[0]!, /already finished/);
    await bridge.shutdown(1000);
  });

  it('`stop` as a message stops the running turn for its author; a queued turn stopped never runs', async () => {
    const { runner, bridge, ended, shown } = setup();
    await bridge.handleMessage(makeMsg({ text: 'one' }));
    await bridge.handleMessage(makeMsg({ text: 'two' }));
    await runner.started(1);
    await waitFor(() => shown().length === 2, 'two replies');
    await bridge.handleMessage(makeMsg({ text: 'stop', user: BOB }));
    await waitFor(() => shown().length === 3, 'refusal');
    assert.equal(shown()[2]!.text, 'Only @ana or an approver can stop this turn (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).');
    // Stop the queued one with its button first: it must never reach the runner.
    await bridge.handleAction(click('stop', shown()[1]!.stopActionId!, ANA));
    await ended(1);
    assert.match(shown()[1]!.text, /stopped by @ana/);
    await bridge.handleMessage(makeMsg({ text: 'STOP' }));
    await ended(2);
    assert.match(shown()[0]!.text, /stopped by @ana/);
    assert.equal(runner.calls.length, 1);
    await bridge.handleMessage(makeMsg({ text: 'stop' }));
    await waitFor(() => shown().some((c) => c.text === 'Nothing is running in this conversation.'), 'nothing running');
    await bridge.shutdown(1000);
  });

  it('shutdown interrupts running turns, hands queued ones over (left in the ledger) and turns new messages away with a notice', async () => {
    const { runner, bridge, shown, surface } = setup({ config: { maxConcurrent: 1 } });
    const queue = bridge.state.queue;
    await bridge.handleMessage(makeMsg({ text: 'running', conversation: conv('C1') }));
    await bridge.handleMessage(makeMsg({ text: 'queued', conversation: conv('C2') }));
    const call = await runner.started(1);
    call.handlers.onPartial?.({ text: 'partial answer' });
    await waitFor(() => shown(conv('C2')).length === 1, 'queued reply');
    const c2 = (await queue.conversations()).find((k) => k.includes('C2'))!;
    assert.equal((await queue.list(c2)).length, 1);
    // The store closes with the bridge: what it holds then is read just before it closes.
    const state = bridge.state as { close(): Promise<void> };
    const close = state.close;
    let left: unknown[] = [];
    state.close = async () => {
      left = await queue.list(c2);
      await close();
    };
    await bridge.shutdown(2000);
    assert.equal(call.ended, true);
    assert.equal(runner.calls.length, 1);
    const a = shown(conv('C1'))[0]!;
    const b = shown(conv('C2'))[0]!;
    assert.match(a.text, /^partial answer[\s\S]*interrupted: the bridge restarted/);
    assert.equal(a.stopActionId, undefined);
    assert.notEqual(a.status, 'working…');
    // The queued turn is not failed: it stays queued for whoever runs it next (recovery / takeover).
    assert.doesNotMatch(b.text, /interrupted/);
    assert.match(b.status ?? '', /^queued/);
    assert.equal(left.length, 1, 'still in its conversation\'s queue');
    assert.deepEqual(bridge.stats().turnsByOutcome, { interrupted: 1 });
    // a message that arrives while the bridge stops is not run; its sender is told to resend
    await bridge.handleMessage(makeMsg({ text: 'after', conversation: conv('C3') }));
    assert.equal(runner.calls.length, 1);
    await waitFor(() => shown(conv('C3')).length === 1, 'the restarting notice');
    assert.match(shown(conv('C3'))[0]!.text, /restarting and did not run this message/);
  });

  it('shutdown finalizes replies even when a run ignores the abort past the grace period', async () => {
    const surface = createRecordingSurface();
    let release!: () => void;
    const stuck = new Promise<void>((r) => (release = r));
    const bridge = createBridge({
      config: makeConfig(),
      logger: silentLogger,
      store: memoryStore(),
      loadProfile: async () => makeProfile(),
      runTurn: async () => {
        await stuck;
        throw new Error('never mind');
      },
    });
    bridge.attach(surface);
    await bridge.handleMessage(makeMsg());
    await waitFor(() => surface.messages().length === 1, 'reply');
    await bridge.shutdown(20);
    assert.match(surface.messages()[0]!.content.text, /interrupted: the bridge restarted/);
    release();
  });

  it('refuses users outside allow_users with a short reply, by route', async () => {
    const { runner, bridge, shown } = setup({
      config: { routes: [{ platform: 'test', channel: 'C9', profile: '/p.yaml', allowUsers: ['U_BOB', 'ROLE_X'] }] },
    });
    let cleaned = false;
    await bridge.handleMessage(makeMsg({ conversation: conv('C9'), cleanup: async () => void (cleaned = true) }));
    assert.match(shown(conv('C9'))[0]!.text, /not allowed to use this bot here/);
    assert.ok(cleaned);
    await bridge.handleMessage(makeMsg({ conversation: conv('C9'), text: 'new' }));
    assert.equal(shown(conv('C9')).length, 1, 'commands need access too; the refusal is not repeated to the same person within 10 minutes');
    assert.equal((await bridge.metrics.render()).match(/turnbridge_messages_rejected_total\{reason="refused"\} (\d+)/)?.[1], '2');
    await bridge.handleMessage(makeMsg({ conversation: conv('C9'), user: { id: 'U_CAT', roles: ['ROLE_X'] } }));
    (await runner.started(1)).finish({ reply: 'ok' });
    await bridge.handleMessage(makeMsg({ conversation: conv('C1') }));
    (await runner.started(2)).finish({ reply: 'ok' });
    await bridge.shutdown(1000);
  });

  it('routes to the most specific profile and explains a broken profile (retrying the load next time)', async () => {
    const loads: string[] = [];
    let broken = true;
    const { runner, bridge, shown, ended } = setup({
      config: {
        defaultProfile: '/default.yaml',
        routes: [
          { platform: 'test', profile: '/platform.yaml' },
          { platform: 'test', channel: 'C2', profile: '/channel.yaml' },
          { space: 'T1', profile: '/space.yaml' },
        ],
      },
      loadProfile: async (path) => {
        loads.push(path);
        if (path === '/channel.yaml' && broken) throw new TurnbridgeError('TB_PROFILE_INVALID', 'profile /channel.yaml: no such file');
        return makeProfile({ command: path });
      },
    });
    await bridge.handleMessage(makeMsg({ conversation: conv('C1') }));
    assert.equal((await runner.started(1)).profile.command, '/space.yaml');
    runner.calls[0]!.finish({ reply: 'ok' });
    await bridge.handleMessage(makeMsg({ conversation: conv('C2') }));
    assert.match(shown(conv('C2'))[0]!.text, /could not be loaded \(TB_PROFILE_INVALID\)/);
    broken = false;
    await bridge.handleMessage(makeMsg({ conversation: conv('C2') }));
    assert.equal((await runner.started(2)).profile.command, '/channel.yaml');
    runner.calls[1]!.finish({ reply: 'ok' });
    await bridge.handleMessage(makeMsg({ conversation: conv('C1') }));
    (await runner.started(3)).finish({ reply: 'ok' });
    await ended(3);
    assert.deepEqual(loads, ['/space.yaml', '/channel.yaml', '/channel.yaml'], 'loaded once per path, failures retried');
    assert.match(await bridge.metrics.render(), /reason="profile_error"\} 1/);
    await bridge.shutdown(1000);
  });

  it('notes once per conversation that a permission:false agent runs tools without asking; shows notices', async () => {
    const { runner, bridge, ended, shown, surface } = setup({ profile: makeProfile({ permission: false }) });
    await bridge.handleMessage(makeMsg({ notices: ['skipped big.zip (too large)'], source: { id: 's', conversation: conv() } }));
    (await runner.started(1)).finish({ reply: 'answer', notices: ['body truncated'] });
    await ended(1);
    await bridge.handleMessage(makeMsg());
    (await runner.started(2)).finish({ error: 'boom', exitCode: 1 });
    await ended(2);
    const [first, second] = shown();
    assert.match(first!.text, /^answer/);
    assert.match(first!.text, /runs tools without asking/);
    assert.match(first!.text, /skipped big\.zip/);
    assert.match(first!.text, /body truncated/);
    assert.doesNotMatch(second!.text, /without asking/);
    assert.match(second!.text, /error: boom/);
    assert.deepEqual(surface.reactions.map((r) => r.state), ['working', 'success']);
    await bridge.shutdown(1000);
  });

  it('a failing session store never loses the reply', async () => {
    const surface = createRecordingSurface();
    const runner = fakeRunner();
    // Sessions live in their own namespace: only they fail here.
    const inner = memoryStore();
    const onFire = () => Promise.reject(new Error('disk on fire'));
    const failing: StateStore = {
      ...inner,
      get: (ns, key) => (ns === 'session' ? onFire() : inner.get(ns, key)),
      set: (ns, key, value, ttlMs) => (ns === 'session' ? onFire() : inner.set(ns, key, value, ttlMs)),
    };
    const bridge = createBridge({ config: makeConfig(), logger: silentLogger, store: failing, runTurn: runner.runTurn, loadProfile: async () => makeProfile() });
    bridge.attach(surface);
    await bridge.handleMessage(makeMsg());
    const call = await runner.started(1);
    call.handlers.onSessionId?.('s');
    call.finish({ reply: 'still here', sessionId: 's' });
    await waitFor(() => /^still here/.test(surface.messages()[0]?.content.text ?? ''), 'reply');
    await bridge.shutdown(1000);
  });
});
