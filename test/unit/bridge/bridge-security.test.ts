/** The bridge core's security steps end to end with a fake runner: access, reset, files, session ids. */
import type { BridgeConfig } from '../../../src/config/types.js';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { conversationKey, createState, readAudit } from '../../../src/state/index.js';
import { createBridge } from '../../../src/bridge/index.js';
import { silentLogger } from '../../../src/log.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { ANA, BOB, BOSS, conv, fakeRunner, makeConfig, makeMsg, makeProfile, waitFor } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-bridge-sec-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** Poll an async condition (store reads) until it holds. */
async function eventually(cond: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (await cond()) return;
    await new Promise((r) => setImmediate(r));
  }
  assert.fail(`timed out waiting for ${what}`);
}

function setup(over: Partial<BridgeConfig> = {}) {
  const surface = createRecordingSurface();
  const runner = fakeRunner();
  const config = makeConfig({ dataDir: join(dir, `d${++n}`), ...over });
  // The state of the configuration: SQLite in this test's data dir.
  const bridge = createBridge({ config, logger: silentLogger, runTurn: runner.runTurn, loadProfile: async () => makeProfile({ permission: true }) });
  bridge.attach(surface);
  const shown = (c = conv()) => surface.messagesIn(c).map((m) => m.content.text);
  const session = () => bridge.state.sessions.get(conversationKey('test', conv()));
  return { surface, runner, bridge, session, state: bridge.state, grants: bridge.state.grants, shown, config };
}

const closed = (over: Partial<BridgeConfig['access']> = {}): Pick<BridgeConfig, 'access'> => ({ access: { mode: 'closed', allowUsers: [], admins: [], dms: true, ...over } });

describe('bridge security', () => {
  it('a stranger gets the way-in reply once, no agent runs, and their files are never fetched; an admin lets them in from chat', async () => {
    const { runner, bridge, shown, config } = setup(closed({ admins: ['test:U_BOSS'], allowUsers: ['test:U_ANA'] }));
    let fetched = 0;
    const withFiles = () => makeMsg({ user: BOB, text: 'look', download: { count: 10, fetch: async () => { fetched++; return { attachments: [], notices: [], cleanup: async () => {} }; } } });
    for (let i = 0; i < 5; i++) await bridge.handleMessage(withFiles());
    assert.equal(fetched, 0, 'nothing downloaded for a refused stranger');
    assert.equal(runner.calls.length, 0);
    assert.equal(shown().length, 1, 'one way-in reply, not five');
    assert.match(shown()[0]!, /turnbridge allow test:U_BOB/);
    await bridge.handleMessage(makeMsg({ user: ANA, text: 'allow slack:U0BOB' }));
    await bridge.handleMessage(makeMsg({ user: BOSS, text: 'allow slack:U0BOB' }));
    await waitFor(() => shown().some((t) => /slack:U0BOB can use the bridge now/.test(t)), 'admin grant confirmed');
    assert.ok(shown().some((t) => /Only admins \(TURNBRIDGE_ADMINS/.test(t)), 'an allowed user who is no admin cannot grant');
    await bridge.handleMessage(makeMsg({ user: BOSS, text: 'allow slack:U0BOB' }));
    await waitFor(() => shown().some((t) => t === 'slack:U0BOB is already allowed; nothing changed.'), 'already allowed');
    assert.equal(shown().filter((t) => /slack:U0BOB can use the bridge now/.test(t)).length, 1, 'not "can use the bridge now" twice');
    await bridge.shutdown(100);
    const state = createState({ dataDir: config.dataDir }, silentLogger);
    const grantsMade = (await readAudit(state.store, 0)).filter((e) => e.kind === 'grant');
    await state.close();
    assert.deepEqual(grantsMade.map((e) => e.kind === 'grant' && [e.identity, e.by, e.via]), [['slack:U0BOB', { platform: 'test', id: 'U_BOSS', name: 'boss' }, 'chat']]);
  });

  it('a grant takes effect on the next message, and files are fetched after acceptance', async () => {
    const { runner, bridge, grants } = setup(closed());
    await bridge.handleMessage(makeMsg({ user: ANA, text: 'one' }));
    assert.equal(runner.calls.length, 0);
    await grants.add('test:U_ANA', { platform: 'cli', id: 'test' });
    let fetched = 0;
    await bridge.handleMessage(makeMsg({ user: ANA, text: 'two', download: { count: 1, fetch: async () => {
      fetched++;
      return { attachments: [{ kind: 'file', url: 'file:///tmp/x.txt', filename: 'x.txt' }], notices: ['Skipped y: too big.'], cleanup: async () => {} };
    } } }));
    const call = await runner.started(1);
    assert.equal(fetched, 1);
    assert.deepEqual(call.turn.attachments?.map((a) => a.filename), ['x.txt'], 'the agent gets the files fetched after acceptance');
    call.finish({ reply: 'ok' });
    await bridge.shutdown(100);
  });

  it('new / reset is the conversation author\'s or an admin\'s', async () => {
    const { runner, bridge, session, shown } = setup({ access: { mode: 'open', allowUsers: [], admins: ['test:U_BOSS'], dms: true } });
    await bridge.handleMessage(makeMsg({ user: ANA, text: 'start' }));
    const c1 = await runner.started(1);
    c1.finish({ reply: 'ok', sessionId: 'sess-ana' });
    await eventually(async () => (await session())?.author === 'test:U_ANA', 'session saved with its author');
    await bridge.handleMessage(makeMsg({ user: BOB, text: 'new' }));
    await waitFor(() => shown().some((t) => /Only the person who started this conversation \(test:U_ANA\) or an admin/.test(t)), 'refused');
    assert.equal((await session())?.session_id, 'sess-ana', 'bob could not wipe ana\'s session');
    await bridge.handleMessage(makeMsg({ user: BOB, text: 'follow-up by bob' }));
    const c2 = await runner.started(2);
    c2.finish({ reply: 'ok', sessionId: 'sess-ana' });
    await waitFor(() => runner.calls.every((c) => c.ended), 'ended');
    assert.equal((await session())?.author, 'test:U_ANA', 'the conversation stays ana\'s');
    await bridge.handleMessage(makeMsg({ user: BOSS, text: 'reset' }));
    await eventually(async () => (await session()) === undefined, 'an admin may reset');
    await bridge.shutdown(100);
  });

  it('new / reset is the author\'s from the first message: before any session id is saved, another person cannot reset', async () => {
    const { runner, bridge, session, shown } = setup({ access: { mode: 'open', allowUsers: [], admins: ['test:U_BOSS'], dms: true } });
    await bridge.handleMessage(makeMsg({ user: ANA, text: 'start' }));
    const c1 = await runner.started(1);
    // The agent has not reported a session id yet: nothing is in the session store.
    assert.equal(await session(), undefined);
    await bridge.handleMessage(makeMsg({ user: BOB, text: 'new' }));
    await waitFor(() => shown().some((t) => /Only the person who started this conversation \(test:U_ANA\) or an admin/.test(t)), 'bob refused before the first session id');
    assert.ok(!shown().some((t) => /Started a fresh session/.test(t)), 'no reset happened');
    c1.finish({ reply: 'ok', sessionId: 'sess-ana' });
    await eventually(async () => (await session())?.session_id === 'sess-ana', 'the session of the turn running during the refused reset is saved');
    assert.equal((await session())?.author, 'test:U_ANA');
    // Ana herself may reset; after it the conversation is still hers (the next writer does not take it).
    await bridge.handleMessage(makeMsg({ user: ANA, text: 'new' }));
    await eventually(async () => (await session()) === undefined, 'the author may reset');
    await bridge.handleMessage(makeMsg({ user: BOB, text: 'bob writes first after the reset' }));
    const c2 = await runner.started(2);
    c2.finish({ reply: 'ok', sessionId: 'sess-2' });
    await eventually(async () => (await session())?.session_id === 'sess-2', 'second session saved');
    assert.equal((await session())?.author, 'test:U_ANA', 'the conversation stays ana\'s');
    await bridge.shutdown(100);
  });

  it('a stored session id starting with "-" is not handed back to the agent', async () => {
    const { runner, bridge, state } = setup();
    await state.store.set('session', 'test:T1:C1:', { session_id: '--dangerously-skip-permissions', profile: '/profiles/default.yaml', updated_at: 1 });
    await bridge.handleMessage(makeMsg({ text: 'hi' }));
    const call = await runner.started(1);
    assert.equal(call.turn.sessionId, undefined);
    call.finish({ reply: 'ok' });
    await bridge.shutdown(100);
  });

  it('approvers_only: the author may not Allow (told which setting), an approver may', async () => {
    const { runner, bridge, surface } = setup({ approvers: ['test:U_BOSS'], routes: [{ platform: 'test', profile: '/p.yaml', approversOnly: true }] });
    await bridge.handleMessage(makeMsg({ user: ANA, text: 'tool' }));
    const call = await runner.started(1);
    const decision = call.handlers.onPermissionRequest!({ requestId: 'r', toolName: 'Bash', input: {} }, { signal: new AbortController().signal });
    await waitFor(() => surface.prompts().length === 1, 'prompt');
    const id = surface.prompts()[0]!.view.promptId;
    const told: string[] = [];
    await bridge.handleAction({ platform: 'test', action: 'allow', id, user: ANA, notifyPrivately: async (t) => void told.push(t) });
    assert.match(told[0] ?? '', /approvers_only: true/);
    await bridge.handleAction({ platform: 'other', action: 'allow', id, user: BOSS, notifyPrivately: async (t) => void told.push(t) });
    assert.equal(told.length, 2, 'the approver\'s id on another platform is refused too');
    await bridge.handleAction({ platform: 'test', action: 'allow', id, user: BOSS, notifyPrivately: async (t) => void told.push(t) });
    assert.equal((await decision).behavior, 'allow');
    call.finish({ reply: 'ok' });
    await bridge.shutdown(100);
  });
});
