/**
 * recovery.ts for another replica's ledger (bridge.takeOver): replica A is abandoned mid-turn with
 * a turn queued and an agent process recorded; replica B, on the same state, finalizes A's reply
 * with the replica wording, runs A's queued turn as its own, and leaves A's agent alone; A, back
 * with its id, ends that agent and finds nothing else to do.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createBridge } from '../../../src/bridge/index.js';
import { TAKEN_OVER_MESSAGE } from '../../../src/bridge/turns/recovery.js';
import { silentLogger } from '../../../src/log.js';
import { processStartTime } from '../../../src/runner/index.js';
import { openState, createSqliteStore } from '../../../src/state/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { conv, fakeRunner, freshDataDir, makeConfig, makeMsg, makeProfile, waitFor } from '../../unit/bridge/helpers.js';

function replica(id: string, file: string, surface: ReturnType<typeof createRecordingSurface>) {
  const runner = fakeRunner();
  const bridge = createBridge({
    config: makeConfig({ maxConcurrent: 1 }), logger: silentLogger, replicaId: id,
    store: createSqliteStore({ file }),
    runTurn: runner.runTurn, loadProfile: async () => makeProfile(), recoverAtStart: true,
  });
  bridge.attach(surface);
  return { bridge, runner };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return processStartTime(pid) !== undefined;
  } catch {
    return false;
  }
};

describe('takeover of a departed replica\'s ledger', () => {
  it('finalizes its reply, runs its queued turn here, leaves its agent to it; its own restart ends the agent', async () => {
    const file = join(freshDataDir(), 'turnbridge.sqlite');
    const surface = createRecordingSurface();
    const a = replica('A', file, surface);
    await a.bridge.recover();
    await a.bridge.handleMessage(makeMsg({ text: 'long job', conversation: conv('C1', 't1') }));
    const call = await a.runner.started(1);
    call.handlers.onPartial?.({ text: 'half of it' });
    await a.bridge.handleMessage(makeMsg({ text: 'next one', conversation: conv('C1', 't1') }));
    // An agent of A's, on "A's host" (here): a process group of its own.
    const agent = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    await waitFor(() => processStartTime(agent.pid!) !== undefined, 'the agent process');
    const peek = openState(createSqliteStore({ file }), { logger: silentLogger });
    await peek.ledger.put({ kind: 'agent', id: 'agent:x', turnId: 'x', holder: 'A', pid: agent.pid!, startTime: processStartTime(agent.pid!)! });
    await waitFor(() => surface.messagesIn(conv('C1', 't1')).some((m) => m.content.text === 'half of it'), 'the partial shown');
    const queued = await peek.queue.list('test:T1:C1:t1');
    assert.deepEqual(queued.map((q) => [q.message.text, q.holder]), [['next one', 'A']]);

    // A is gone (never shut down). B takes its ledger over.
    const b = replica('B', file, surface);
    assert.equal((await b.bridge.recover()).replies, 0, 'B\'s own ledger is empty');
    const report = await b.bridge.takeOver('A');
    assert.deepEqual([report.replies, report.queued, report.agentsEnded, report.left], [1, 1, 0, 0]);
    const msgs = surface.messagesIn(conv('C1', 't1'));
    const finalA = msgs.find((m) => m.content.status === TAKEN_OVER_MESSAGE)!;
    assert.ok(finalA, `A's reply says "${TAKEN_OVER_MESSAGE}"`);
    assert.equal(finalA.content.stopActionId, undefined);
    const rerun = await b.runner.started(1);
    assert.equal(rerun.turn.message, 'next one', 'A\'s queued turn runs on B');
    assert.deepEqual((await peek.queue.list('test:T1:C1:t1')).map((q) => q.holder), [], 'out of the queue once started');
    assert.equal((await peek.ledger.all()).find((r) => r.kind === 'reply' && r.message.text === 'next one')?.holder, 'B', 're-homed to B');
    assert.equal(alive(agent.pid!), true, 'B left A\'s agent alone');
    assert.deepEqual((await peek.ledger.all()).filter((r) => r.holder === 'A').map((r) => r.kind), ['agent']);
    rerun.finish({ reply: 'done' });

    // A comes back with its id: it ends its agent and redoes nothing.
    const a2 = replica('A', file, surface);
    const own = await a2.bridge.recover();
    assert.deepEqual([own.agentsEnded, own.replies, own.queued], [1, 0, 0]);
    await waitFor(() => !alive(agent.pid!), 'the agent ended');
    assert.equal(a2.runner.calls.length, 0);
    for (const x of [a, b, a2]) await x.bridge.shutdown(100);
    await peek.close();
  });
});
