/**
 * Prompts in the bridge (execute-turn + broker + delivery + turn queue): a turn gives its slot
 * away only while a person must decide, takes one back without passing maxConcurrent, and a
 * prompt the platform refuses for good is a deny the reply explains.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createBridge } from '../../../src/bridge/index.js';
import { conversationKey } from '../../../src/state/index.js';
import { ruleFor } from '../../../src/bridge/approvals/permission-rules.js';
import type { PermissionRequest } from '../../../src/protocol/types.js';
import { TurnbridgeError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { ANA, BOB, conv, fakeRunner, makeConfig, makeMsg, makeProfile, memoryStore, waitFor } from './helpers.js';

const bash = (command: string): PermissionRequest => ({ requestId: `r-${command}`, toolName: 'Bash', input: { command } });

async function rig(surface = createRecordingSurface()) {
  const runner = fakeRunner();
  const base = makeConfig();
  const config = makeConfig({ maxConcurrent: 1, limits: { ...base.limits, promptWaits: 1 } });
  const bridge = createBridge({ config, logger: silentLogger, store: memoryStore(), runTurn: runner.runTurn, loadProfile: async () => makeProfile({ permission: true }) });
  bridge.attach(surface);
  return { rules: bridge.state.rules, surface, runner, bridge };
}

describe('prompt parking in the bridge', () => {
  it('a request a thread rule answers does not park: the next turn does not start beside it', async () => {
    const r = await rig();
    await r.rules.add(conversationKey('test', conv('C1', 't1')), { v: 2, rule: ruleFor('Bash', { command: 'npm test' })!, scope: { kind: 'person', person: { platform: 'test', ...ANA } }, setBy: { platform: 'test', ...ANA }, setAt: 0 });
    await r.bridge.handleMessage(makeMsg({ conversation: conv('C1', 't1'), text: 'run the tests' }));
    const a = await r.runner.started(1);
    await r.bridge.handleMessage(makeMsg({ conversation: conv('C2', 't2'), user: BOB, text: 'hello' }));
    const decision = await a.handlers.onPermissionRequest!(bash('npm test src'), { signal: new AbortController().signal });
    assert.deepEqual(decision, { behavior: 'allow' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(r.runner.calls.length, 1, 'no person waited, so the second turn still waits for the one slot');
    assert.equal(r.bridge.stats().activeAgents, 1);
    a.finish({ reply: 'ok' });
    (await r.runner.started(2)).finish({ reply: 'ok' });
    assert.equal(r.runner.peak, 1);
    await r.bridge.shutdown(1000);
  });

  it('a decided prompt waits for a free slot before the agent hears the answer (maxConcurrent holds)', async () => {
    const r = await rig();
    await r.bridge.handleMessage(makeMsg({ conversation: conv('C1', 't1'), text: 'deploy' }));
    const a = await r.runner.started(1);
    await r.bridge.handleMessage(makeMsg({ conversation: conv('C2', 't2'), user: BOB, text: 'hello' }));
    let answered = false;
    const decision = a.handlers.onPermissionRequest!(bash('make deploy'), { signal: new AbortController().signal }).then((d) => ((answered = true), d));
    await waitFor(() => r.surface.prompts().length === 1, 'the prompt');
    const b = await r.runner.started(2);
    assert.equal(r.bridge.stats().activeAgents, 1, 'a is parked, b holds the slot');
    assert.equal(r.bridge.stats().parkedAgents, 1);
    // Both agents are alive: the gauges say so between them, and a scrape reads it.
    assert.match(await r.bridge.metrics.render(), /^turnbridge_parked_agents 1$/m);
    await r.bridge.handleAction({ platform: 'test', action: 'allow', id: r.surface.prompts()[0]!.view.promptId, user: ANA, notifyPrivately: async () => {} });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false, 'decided, but the one slot is b\'s');
    assert.equal(r.bridge.stats().activeAgents, 1);
    assert.equal(r.bridge.stats().parkedAgents, 1, 'decided, still parked until a slot is free');
    b.finish({ reply: 'ok' });
    assert.deepEqual(await decision, { behavior: 'allow' });
    assert.equal(r.bridge.stats().activeAgents, 1);
    assert.equal(r.bridge.stats().parkedAgents, 0, 'a holds the slot again');
    assert.match(await r.bridge.metrics.render(), /^turnbridge_parked_agents 0$/m);
    a.finish({ reply: 'ok' });
    await r.bridge.shutdown(1000);
  });

  it('a prompt the platform refuses for good: deny saying it could not be shown, and the reply says so', async () => {
    const refused = new TurnbridgeError('TB_PLATFORM_ERROR', 'Slack chat.postMessage failed: not_in_channel', { permanent: true });
    const r = await rig(createRecordingSurface({ failWith: { postPrompt: [{ error: refused }] } }));
    await r.bridge.handleMessage(makeMsg({ conversation: conv('C1', 't1'), text: 'deploy' }));
    const a = await r.runner.started(1);
    const decision = await a.handlers.onPermissionRequest!(bash('make deploy'), { signal: new AbortController().signal });
    assert.equal(decision.behavior, 'deny');
    assert.match(decision.message!, /could not show the permission prompt/);
    assert.equal(r.surface.callsOf('postPrompt').length, 1, 'a permanent refusal is not retried');
    a.finish({ reply: 'gave up' });
    await waitFor(() => r.surface.messagesIn(conv('C1', 't1')).some((m) => /could not be shown here \(TB_PLATFORM_ERROR: Slack chat.postMessage failed: not_in_channel\), so it was denied/.test(m.content.text)), 'the line in the reply');
    await r.bridge.shutdown(1000);
  });
});
