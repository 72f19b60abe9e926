/**
 * `use <profile>` (issue 26): a thread lists and switches the profiles its route offers, its next
 * turns run the chosen one, the session carries over between profiles that start the same agent
 * and not otherwise, only the author or an admin switches, a bare `use <word>` naming nothing is
 * the agent's, a switch never lets in anyone the chosen profile's routes would not, and a plan
 * approved in a thread switched to a plan profile moves it back. The bridge with a fake runner and
 * the card fixtures' profile files (test/fixtures/card-agents).
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createBridge } from '../../../src/bridge/index.js';
import { loadProfile, sameAgent } from '../../../src/profile/index.js';
import { silentLogger } from '../../../src/log.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { ANA, BOB, click, conv, fakeRunner, makeConfig, makeMsg, memoryStore, waitFor } from './helpers.js';
import type { BridgeConfig } from '../../../src/config/types.js';

const DIR = join(process.cwd(), 'test/fixtures/card-agents');
const CARDS = join(DIR, 'profile.yaml');
const PLAN = join(DIR, 'plan.yaml');
const OTHER = join(DIR, 'other.yaml');
const THREAD = conv('C1', 'th1');

function rig(over: Partial<BridgeConfig> = {}) {
  const surface = createRecordingSurface();
  const runner = fakeRunner();
  const config = makeConfig({ defaultProfile: CARDS, routes: [{ profile: CARDS, profiles: [PLAN, OTHER] }], ...over });
  const bridge = createBridge({ config, logger: silentLogger, store: memoryStore(), runTurn: runner.runTurn, loadProfile: (p) => loadProfile(p) });
  bridge.attach(surface);
  const said = () => surface.messagesIn(THREAD).map((m) => m.content.text);
  /** Send `text` in the thread and wait for the bridge's answer to a command. */
  const command = async (text: string, user = ANA): Promise<string> => {
    const before = said().length;
    await bridge.handleMessage(makeMsg({ text, user, conversation: THREAD }));
    await waitFor(() => said().length > before, `the answer to ${text}`);
    return said().at(-1)!;
  };
  /** Send `text` as a turn; the agent reports `session`. */
  const turn = async (text: string, session: string) => {
    const n = runner.calls.length;
    await bridge.handleMessage(makeMsg({ text, conversation: THREAD }));
    const call = await runner.started(n + 1);
    call.handlers.onSessionId?.(session);
    return call;
  };
  return { surface, runner, bridge, command, turn, said };
}

describe('use <profile>', () => {
  it('the profiles behind it start the same agent or not (profile/same-agent.ts), as the shipped claude profiles do', async () => {
    const [cards, plan, other] = await Promise.all([CARDS, PLAN, OTHER].map((p) => loadProfile(p)));
    assert.equal(sameAgent(cards!, plan!), true);
    assert.equal(sameAgent(cards!, other!), false, 'another argument: another agent');
    const root = process.cwd();
    const [code, codePlan, codex] = await Promise.all(['claude-code', 'claude-code-plan', 'codex'].map((n) => loadProfile(join(root, 'profiles', n, 'profile.yaml'))));
    assert.equal(sameAgent(code!, codePlan!), true, 'claude-code-plan runs claude-code\'s wrapper');
    assert.equal(sameAgent(code!, codex!), false);
  });

  it('lists, switches, runs the chosen profile with the session carried over; another agent starts a new session; default goes back', async () => {
    const r = rig();
    const first = await r.turn('hello', 'sess-1');
    assert.equal(first.profile.name, 'cards');
    first.finish({ reply: 'hi', sessionId: 'sess-1' });
    await r.bridge.state.idle();
    assert.equal(await r.command('use'), 'This thread uses `cards` — asks questions and shows plans as the claude-code wrapper does. `use <name>` switches its next messages to:\n• `cards-plan` — the cards agent, planning first\n• `other-agent` — another CLI (another agent: a new session)');
    assert.equal(await r.command('use cards-plan'), 'This thread now uses `cards-plan` — the cards agent, planning first, from the next message. The session carries over (the same agent).');
    const second = await r.turn('plan it', 'sess-1');
    assert.equal(second.profile.name, 'cards-plan');
    assert.equal(second.turn.sessionId, 'sess-1', 'the session carried over');
    second.finish({ reply: 'ok', sessionId: 'sess-1' });
    assert.match(await r.command('use'), /^This thread uses `cards-plan`[\s\S]*`use default` goes back to `cards`\.$/);
    assert.equal(await r.command('use other-agent'), 'This thread now uses `other-agent` — another CLI, from the next message. It runs another agent than `cards-plan`: the next message starts a new session.');
    const third = await r.turn('hello other', 'sess-2');
    assert.equal(third.profile.name, 'other-agent');
    assert.equal(third.turn.sessionId, undefined, 'a new session');
    third.finish({ reply: 'ok', sessionId: 'sess-2' });
    assert.equal(await r.command('use other-agent'), 'This thread already uses `other-agent`.');
    assert.match(await r.command('/use default'), /^This thread now uses `cards`/);
    const fourth = await r.turn('back', 'sess-2');
    assert.equal(fourth.profile.name, 'cards');
    fourth.finish({ reply: 'ok' });
    await r.bridge.shutdown(1000);
  });

  it('only the author or an admin switches; `/use <unknown>` says what is offered; a bare `use <word>` naming nothing goes to the agent', async () => {
    const r = rig();
    const first = await r.turn('hello', 'sess-1');
    first.finish({ reply: 'hi', sessionId: 'sess-1' });
    await r.bridge.state.idle();
    assert.match(await r.command('use cards-plan', BOB), /^Only the person who started this conversation \(test:U_ANA\) or an admin/);
    assert.equal(await r.command('/use pandas'), 'No profile named `pandas` here. Offered: `cards`, `cards-plan`, `other-agent`.');
    const asked = await r.turn('use pandas', 'sess-1');
    assert.equal(asked.turn.message, 'use pandas', 'the agent got it');
    assert.equal(asked.profile.name, 'cards', 'nothing switched');
    asked.finish({ reply: 'ok' });
    await r.bridge.shutdown(1000);
  });

  it('a switch never lets anyone in that the chosen profile\'s routes would not', async () => {
    // a route elsewhere names cards-plan and allows only ana: bob may not switch this thread to it
    const r = rig({ routes: [{ profile: CARDS, profiles: [PLAN] }, { channel: 'C9', profile: PLAN, allowUsers: ['test:U_ANA'] }] });
    const first = await r.turn('hello', 'sess-1');
    first.finish({ reply: 'hi', sessionId: 'sess-1' });
    await r.bridge.state.idle();
    const bobsOwn = rig({ routes: [{ profile: CARDS, profiles: [PLAN] }, { channel: 'C9', profile: PLAN, allowUsers: ['test:U_ANA'] }] });
    assert.match(await bobsOwn.command('use cards-plan', BOB), /^You could not use `cards-plan` here: /);
    assert.match(await r.command('use cards-plan'), /^This thread now uses `cards-plan`/);
    // once switched, the restrictions of the routes naming cards-plan hold here: bob is refused
    const refusals = r.said().length;
    await r.bridge.handleMessage(makeMsg({ text: 'let me in', user: BOB, conversation: THREAD }));
    await waitFor(() => r.said().length > refusals, 'the refusal');
    assert.match(r.said().at(-1)!, /not enabled here|not allowed/i);
    assert.equal(r.runner.calls.length, 1, 'no turn for bob');
    await r.bridge.shutdown(1000);
    await bobsOwn.bridge.shutdown(1000);
  });

  it('a plan approved in a thread switched to the plan profile moves it back; the card says so before and after', async () => {
    const r = rig();
    const first = await r.turn('hello', 'sess-1');
    first.finish({ reply: 'hi', sessionId: 'sess-1' });
    await r.bridge.state.idle();
    await r.command('use cards-plan');
    const planned = await r.turn('fix it', 'sess-1');
    const decision = planned.handlers.onPermissionRequest!({ requestId: 'p', toolName: 'ExitPlanMode', input: { plan: '1. Fix' } }, { signal: new AbortController().signal });
    await waitFor(() => r.surface.prompts().length === 1, 'the plan card');
    const card = r.surface.prompts()[0]!.view;
    assert.deepEqual(card.card, { kind: 'plan', shown: true, next: 'cards' });
    await r.bridge.handleAction(click('approve', card.promptId, ANA));
    assert.deepEqual(await decision, { behavior: 'allow' });
    planned.finish({ reply: 'done', sessionId: 'sess-1' });
    const after = await r.turn('and then', 'sess-1');
    assert.equal(after.profile.name, 'cards', 'back on the profile it used before');
    assert.equal(after.turn.sessionId, 'sess-1', 'with the session (and the approved plan in it)');
    after.finish({ reply: 'ok' });
    // a plan sent back moves nothing
    await r.command('use cards-plan');
    const again = await r.turn('fix more', 'sess-1');
    const second = again.handlers.onPermissionRequest!({ requestId: 'p2', toolName: 'ExitPlanMode', input: { plan: '1. More' } }, { signal: new AbortController().signal });
    await waitFor(() => r.surface.prompts().length === 2, 'the second plan card');
    await r.bridge.handleFormSubmit!({ platform: 'test', kind: 'feedback', id: r.surface.prompts()[1]!.view.promptId, value: 'smaller steps', user: ANA, notifyPrivately: async () => {} });
    assert.deepEqual(await second, { behavior: 'deny', message: 'smaller steps' });
    again.finish({ reply: 'ok' });
    const still = await r.turn('go on', 'sess-1');
    assert.equal(still.profile.name, 'cards-plan');
    still.finish({ reply: 'ok' });
    await r.bridge.shutdown(1000);
  });
});
