/**
 * Two bridge replicas on one Redis: a click (or Stop) that the platform hands to the replica
 * without the agent is forwarded to the one that holds it, which decides; what the clicker must
 * be told privately comes back and is told by the replica the platform asked.
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { createBridge } from '../../../src/bridge/index.js';
import type { PromptForm } from '../../../src/bridge/types.js';
import { silentLogger } from '../../../src/log.js';
import { createConversationGate, createReplicaBus, type ConversationGate, type ReplicaBus } from '../../../src/replicas/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { startRedisServer, type RedisServer, closeConnections, connectionsTo } from '../../fakes/redis-server.js';
import { ANA, BOB, click, fakeRunner, makeConfig, makeMsg, makeProfile, memoryStore, waitFor } from '../../unit/bridge/helpers.js';
import { testBusKey } from '../../fixtures/bus-key.js';
import { COLOR, FEATURES } from '../../fixtures/card-agents/questions.mjs';

let server: RedisServer;
const buses: ReplicaBus[] = [];
const gates: ConversationGate[] = [];
before(async () => {
  server = await startRedisServer();
});
after(async () => {
  await Promise.all(gates.map((g) => g.close()));
  await Promise.all(buses.map((b) => b.close()));
  await closeConnections();
  server.stop();
});

function replica(id: string) {
  const surface = createRecordingSurface();
  const runner = fakeRunner();
  const bus = createReplicaBus({ redis: connectionsTo(server.url), logger: silentLogger, id, prefix: 'fw', key: testBusKey() });
  buses.push(bus);
  const bridge = createBridge({
    config: makeConfig(), logger: silentLogger, store: memoryStore(), runTurn: runner.runTurn, bus,
    loadProfile: async () => makeProfile({ permission: true }),
    idFactory: (() => { let n = 0; return () => `${id}-${++n}`; })(),
  });
  bridge.attach(surface);
  return { surface, runner, bridge, bus };
}

describe('clicks forwarded between replicas (real redis-server)', () => {
  it('Allow clicked on replica B decides the prompt of the agent on replica A; a stranger is told why, on B', async () => {
    const a = replica('A');
    const b = replica('B');
    await a.bridge.handleMessage(makeMsg({ text: 'run it' }));
    const call = await a.runner.started(1);
    const decision = call.handlers.onPermissionRequest!({ requestId: 'r1', toolName: 'Bash', description: 'list', input: { command: 'ls' } }, { signal: new AbortController().signal });
    await waitFor(() => a.surface.prompts().length === 1, 'the prompt on A');
    const promptId = a.surface.prompts()[0]!.view.promptId;

    assert.equal(await a.bus.ready(), true);
    assert.equal(await b.bus.ready(), true);
    const stranger = click('allow', promptId, BOB);
    await b.bridge.handleAction(stranger);
    assert.equal(stranger.told.length, 1);
    assert.match(stranger.told[0]!, /^Only @ana or an approver can answer this request/, 'told on B what A decided');

    const author = click('allow', promptId, ANA);
    await b.bridge.handleAction(author);
    assert.deepEqual(await decision, { behavior: 'allow' }, 'the agent on A got the decision');
    assert.deepEqual(author.told, []);
    call.finish({ reply: 'done' });

    const late = click('allow', promptId, ANA);
    await b.bridge.handleAction(late);
    assert.match(late.told[0]!, /expired|already allowed/, 'a click after the end still gets an answer');
    await a.bridge.shutdown(1000);
    await b.bridge.shutdown(1000);
  });

  it('Edit and allow on replica B: the form A prepared opens on B, and the edit submitted on B reaches the agent on A', async () => {
    const a = replica('A2');
    const b = replica('B2');
    await a.bridge.handleMessage(makeMsg({ text: 'run it' }));
    const call = await a.runner.started(1);
    const decision = call.handlers.onPermissionRequest!({ requestId: 'r1', toolName: 'Bash', description: 'list', input: { command: 'ls' } }, { signal: new AbortController().signal });
    await waitFor(() => a.surface.prompts().length === 1, 'the prompt on A');
    const promptId = a.surface.prompts()[0]!.view.promptId;
    await a.bus.ready();
    await b.bus.ready();
    const forms: PromptForm[] = [];
    const edit = { ...click('edit', promptId, ANA), openForm: async (f: PromptForm) => void forms.push(f) };
    await b.bridge.handleAction(edit);
    assert.equal(forms.length, 1, 'the form opened on B (which holds the click\'s trigger)');
    assert.equal(forms[0]!.kind === 'edit' && forms[0]!.initial, 'ls', 'pre-filled by A with the command');
    const told: string[] = [];
    const answer = await b.bridge.handleFormSubmit!({ platform: 'test', kind: 'edit', id: promptId, value: 'ls -la', user: ANA, notifyPrivately: async (t) => void told.push(t) });
    assert.deepEqual(answer, { ok: true });
    assert.deepEqual(await decision, { behavior: 'allow', updatedInput: { command: 'ls -la' } }, 'the agent on A got the edited input');
    call.finish({ reply: 'done' });
    await a.bridge.shutdown(1000);
    await b.bridge.shutdown(1000);
  });

  it('a question card on replica A: a stranger on B is refused, Other… opens its form on B, the typed answer submitted on B reaches the agent on A; a plan approved on B', async () => {
    const a = replica('A4');
    const b = replica('B4');
    await a.bridge.handleMessage(makeMsg({ text: 'ask me' }));
    const call = await a.runner.started(1);
    const asked = { requestId: 'q1', toolName: 'AskUserQuestion', input: { questions: [COLOR, FEATURES] } };
    const decision = call.handlers.onPermissionRequest!(asked, { signal: new AbortController().signal });
    await waitFor(() => a.surface.prompts().length === 1, 'the card on A');
    const cardId = a.surface.prompts()[0]!.view.promptId;
    await a.bus.ready();
    await b.bus.ready();
    const stranger = { ...click('answer', cardId, BOB), choice: { question: 0, options: [2] } };
    await b.bridge.handleAction(stranger);
    assert.match(stranger.told[0]!, /^Only @ana or an approver can answer/);
    // the choice (question 0, option 1) crosses the bus with the click
    await b.bridge.handleAction({ ...click('answer', cardId, ANA), choice: { question: 0, options: [1] } });
    await waitFor(() => {
      const card = a.surface.prompts()[0]!.view.card;
      return card?.kind === 'question' && card.questions[0]!.answer?.value === 'Blue';
    }, 'the first answer on the card on A');
    const forms: PromptForm[] = [];
    await b.bridge.handleAction({ ...click('other', cardId, ANA), choice: { question: 1 }, openForm: async (f: PromptForm) => void forms.push(f) });
    assert.equal(forms[0]?.kind, 'other', 'the form opened on B');
    const answer = await b.bridge.handleFormSubmit!({ platform: 'test', kind: 'other', id: cardId, question: 1, value: 'Only search', user: ANA, notifyPrivately: async () => {} });
    assert.deepEqual(answer, { ok: true });
    assert.deepEqual(await decision, { behavior: 'allow', updatedInput: { questions: [COLOR, FEATURES], answers: { [COLOR.question]: 'Blue', [FEATURES.question]: 'Only search' } } });
    const plan = call.handlers.onPermissionRequest!({ requestId: 'p1', toolName: 'ExitPlanMode', input: { plan: '1. Fix' } }, { signal: new AbortController().signal });
    await waitFor(() => a.surface.prompts().length === 2, 'the plan card on A');
    await b.bridge.handleAction(click('approve', a.surface.prompts()[1]!.view.promptId, ANA));
    assert.deepEqual(await plan, { behavior: 'allow' });
    call.finish({ reply: 'done' });
    await a.bridge.shutdown(1000);
    await b.bridge.shutdown(1000);
  });

  it('Stop clicked on replica B stops the turn running on replica A', async () => {
    const a = replica('A3');
    const b = replica('B3');
    await a.bridge.handleMessage(makeMsg({ text: 'slow' }));
    const call = await a.runner.started(1);
    const stopId = await waitFor(() => a.surface.messagesIn(makeMsg().conversation).some((m) => m.content.stopActionId), 'a Stop control')
      .then(() => a.surface.messagesIn(makeMsg().conversation).find((m) => m.content.stopActionId)!.content.stopActionId!);
    await a.bus.ready();
    await b.bus.ready();
    const stop = click('stop', stopId, ANA);
    await b.bridge.handleAction(stop);
    assert.equal(call.ended, true, 'the agent on A was stopped');
    await a.bridge.shutdown(1000);
    await b.bridge.shutdown(1000);
  });
});

describe('one turn at a time per conversation across replicas (real redis-server)', () => {
  it('messages of one thread alternating between two replicas run one at a time, in arrival order', async () => {
    const make = (id: string) => {
      const surface = createRecordingSurface();
      const runner = fakeRunner();
      const bus = createReplicaBus({ redis: connectionsTo(server.url), logger: silentLogger, id, prefix: 'ord', key: testBusKey() });
      buses.push(bus);
      const gate = createConversationGate({ redis: connectionsTo(server.url), logger: silentLogger, prefix: 'ord', alive: (r) => bus.alive(r), pollMs: 50 });
      gates.push(gate);
      const bridge = createBridge({
        config: makeConfig(), logger: silentLogger, store: memoryStore(), runTurn: runner.runTurn, bus, gate,
        loadProfile: async () => makeProfile(),
      });
      bridge.attach(surface);
      return { runner, bridge };
    };
    const a = make('OA');
    const b = make('OB');
    const order: string[] = [];
    for (let i = 1; i <= 6; i++) await (i % 2 ? a : b).bridge.handleMessage(makeMsg({ text: `m${i}` }));
    // Whichever replica holds the next turn starts it only after the previous one ended.
    for (let i = 1; i <= 6; i++) {
      await waitFor(() => a.runner.calls.length + b.runner.calls.length >= i, `turn ${i} started`);
      const running = [...a.runner.calls, ...b.runner.calls].filter((c) => !c.ended);
      assert.equal(running.length, 1, 'never two turns of the conversation at once');
      order.push(running[0]!.turn.message);
      running[0]!.finish({ reply: 'ok' });
    }
    assert.deepEqual(order, ['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    await a.bridge.shutdown(1000);
    await b.bridge.shutdown(1000);
  });
});
