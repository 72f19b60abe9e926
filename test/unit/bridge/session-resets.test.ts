/**
 * `new` / `reset` during a turn, seen through the shared reset mark: by the turn of this bridge
 * and by a turn running on another replica of the same state; the in-process order of a reset
 * and a save of one conversation.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createBridge } from '../../../src/bridge/index.js';
import { createSqliteStore, openState } from '../../../src/state/index.js';
import { memoryState } from './helpers.js';
import { silentLogger } from '../../../src/log.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { conv, fakeRunner, freshDataDir, makeConfig, makeMsg, makeProfile, waitFor } from './helpers.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('session reset marks', () => {
  it('a save under the mark read before a reset is refused; under the new mark it goes through', async () => {
    const resets = memoryState().resets;
    const before = await resets.current('K');
    assert.equal(before, '', 'never reset');
    let forgotten = 0;
    assert.equal(await resets.reset('K', async () => ++forgotten), 1, 'reset answers what forget answered');
    const after = await resets.current('K');
    assert.notEqual(after, before);
    let saves = 0;
    assert.equal(await resets.saveUnlessReset('K', before, async () => void saves++), false);
    assert.equal(saves, 0, 'the save of a turn that read the session before the reset does not run');
    assert.equal(await resets.saveUnlessReset('K', after, async () => void saves++), true);
    assert.equal(saves, 1);
    await resets.reset('K', async () => 0);
    assert.notEqual(await resets.current('K'), after, 'each reset is a new mark');
    assert.equal(await resets.saveUnlessReset('other', '', async () => void saves++), true, 'another conversation\'s reset is not this one\'s');
  });

  it('in this process a reset waits for a save in flight, and a save asked after a reset sees it', async () => {
    const resets = memoryState().resets;
    const order: string[] = [];
    const slowSave = deferred();
    const mark = await resets.current('K');
    const saving = resets.saveUnlessReset('K', mark, async () => { order.push('save starts'); await slowSave.promise; order.push('save done'); });
    const resetting = resets.reset('K', async () => void order.push('forget'));
    const late = resets.saveUnlessReset('K', mark, async () => void order.push('late save'));
    await waitFor(() => order.length > 0, 'the first save');
    slowSave.resolve();
    assert.deepEqual(await Promise.all([saving, resetting, late]), [true, undefined, false]);
    assert.deepEqual(order, ['save starts', 'save done', 'forget'], 'the reset removes the session after the save landed; the late save does not run');
  });
});

describe('a reset on another replica during a turn', () => {
  it('keeps the turn running here from saving its session over the reset', async () => {
    // Two bridges on one state file, as two replicas on one Redis: the turn runs on the first,
    // the reset arrives on the second, then the agent reports its session id.
    const file = join(freshDataDir(), 'turnbridge.sqlite');
    const replica = () => {
      const surface = createRecordingSurface();
      const runner = fakeRunner();
      const bridge = createBridge({
        config: makeConfig(), logger: silentLogger, store: createSqliteStore({ file }),
        runTurn: runner.runTurn, loadProfile: async () => makeProfile(),
      });
      bridge.attach(surface);
      return { surface, runner, bridge };
    };
    const a = replica();
    const b = replica();
    const peek = openState(createSqliteStore({ file }), { logger: silentLogger });
    const sessionNow = async () => (await peek.sessions.get('test:T1:C1:'))?.session_id;

    await a.bridge.handleMessage(makeMsg({ text: 'first' }));
    const running = await a.runner.started(1);
    await b.bridge.handleMessage(makeMsg({ text: 'new' }));
    await waitFor(() => b.surface.messagesIn(conv()).some((m) => /fresh session/.test(m.content.text)), 'the reset confirmation on the other replica');
    running.handlers.onSessionId?.('old');
    running.finish({ sessionId: 'old' });
    await waitFor(() => (a.bridge.stats().turnsByOutcome.success ?? 0) === 1, 'the turn ended');
    assert.equal(await sessionNow(), undefined, 'the reset stays: the old session is not saved back');

    // The next turn (here on the other replica) starts fresh and saves its own session.
    await b.bridge.handleMessage(makeMsg({ text: 'second' }));
    const next = await b.runner.started(1);
    assert.equal(next.turn.sessionId, undefined);
    next.finish({ sessionId: 'fresh' });
    await waitFor(() => (b.bridge.stats().turnsByOutcome.success ?? 0) === 1, 'the second turn ended');
    assert.equal(await sessionNow(), 'fresh');
    await Promise.all([a.bridge.shutdown(1000), b.bridge.shutdown(1000)]);
    await peek.close();
  });
});
