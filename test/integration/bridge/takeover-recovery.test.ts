/**
 * recovery.ts for another replica's ledger (bridge.takeOver): replica A is abandoned mid-turn with
 * a turn queued and an agent process recorded; replica B, on the same state, finalizes A's reply
 * with the replica wording and runs A's queued turn as its own. A's agent recorded on another
 * host is left alone (the reply names that host) and A, back with its id, ends it; recorded on
 * B's host (same boot id and pid namespace), B ends it and the reply says so.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createBridge } from '../../../src/bridge/index.js';
import { AGENT_ENDED_NOTE, agentElsewhereNote, TAKEN_OVER_MESSAGE } from '../../../src/bridge/turns/recovery.js';
import { silentLogger } from '../../../src/log.js';
import { processHost, processStartTime } from '../../../src/runner/index.js';
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
  /** A holds a running turn (its agent recorded on `host`) and one queued; B, on the same state, takes A's ledger over. */
  async function abandonedAndTakenOver(host: { bootId: string; pidNs: string; name: string } | undefined) {
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
    const turnId = (await peek.ledger.all()).find((r) => r.kind === 'reply' && r.message.text === 'long job')!.id;
    await peek.ledger.put({ kind: 'agent', id: `agent:${turnId}`, turnId, holder: 'A', pid: agent.pid!, startTime: processStartTime(agent.pid!)!, ...(host ? { host } : {}) });
    await waitFor(() => surface.messagesIn(conv('C1', 't1')).some((m) => m.content.text === 'half of it'), 'the partial shown');
    const queued = await peek.queue.list('test:T1:C1:t1');
    assert.deepEqual(queued.map((q) => [q.message.text, q.holder]), [['next one', 'A']]);

    // A is gone (never shut down). B takes its ledger over.
    const b = replica('B', file, surface);
    assert.equal((await b.bridge.recover()).replies, 0, 'B\'s own ledger is empty');
    const report = await b.bridge.takeOver('A');
    const rerun = await b.runner.started(1);
    assert.equal(rerun.turn.message, 'next one', 'A\'s queued turn runs on B');
    assert.deepEqual((await peek.queue.list('test:T1:C1:t1')).map((q) => q.holder), [], 'out of the queue once started');
    assert.equal((await peek.ledger.all()).find((r) => r.kind === 'reply' && r.message.text === 'next one')?.holder, 'B', 're-homed to B');
    rerun.finish({ reply: 'done' });
    const finalA = surface.messagesIn(conv('C1', 't1')).find((m) => m.content.status?.startsWith(TAKEN_OVER_MESSAGE));
    assert.ok(finalA, `A's reply says "${TAKEN_OVER_MESSAGE}"`);
    assert.equal(finalA.content.stopActionId, undefined);
    return { a, b, agent, report, status: finalA.content.status, peek, file, surface };
  }

  it('an agent on another host: left to A, the reply names the host; A\'s own restart ends it', async () => {
    const { a, b, agent, report, status, peek, file, surface } = await abandonedAndTakenOver({ bootId: 'another-boot', pidNs: 'pid:[1]', name: 'host-of-a' });
    assert.deepEqual([report.replies, report.queued, report.agentsEnded, report.left], [1, 1, 0, 0]);
    assert.equal(status, `${TAKEN_OVER_MESSAGE}; ${agentElsewhereNote('host-of-a')}`);
    assert.equal(alive(agent.pid!), true, 'B left A\'s agent alone');
    assert.deepEqual((await peek.ledger.all()).filter((r) => r.holder === 'A').map((r) => r.kind), ['agent']);

    // A comes back with its id: it ends its agent and redoes nothing.
    const a2 = replica('A', file, surface);
    const own = await a2.bridge.recover();
    assert.deepEqual([own.agentsEnded, own.replies, own.queued], [1, 0, 0]);
    await waitFor(() => !alive(agent.pid!), 'the agent ended');
    assert.equal(a2.runner.calls.length, 0);
    for (const x of [a, b, a2]) await x.bridge.shutdown(100);
    await peek.close();
  });

  it('an agent on this host (A never comes back): B ends it, and the reply says so', async () => {
    const here = processHost();
    assert.ok(here, 'a Linux host with /proc');
    const { a, b, agent, report, status, peek } = await abandonedAndTakenOver(here);
    assert.deepEqual([report.replies, report.queued, report.agentsEnded, report.left], [1, 1, 1, 0]);
    assert.equal(status, `${TAKEN_OVER_MESSAGE}; ${AGENT_ENDED_NOTE}`);
    await waitFor(() => !alive(agent.pid!), 'B ended A\'s agent');
    assert.deepEqual((await peek.ledger.all()).filter((r) => r.holder === 'A'), [], 'nothing left under A');
    for (const x of [a, b]) await x.bridge.shutdown(100);
    await peek.close();
  });

  it('an agent recorded without a host (an older version): left to A', async () => {
    const { a, b, agent, report, status, peek } = await abandonedAndTakenOver(undefined);
    assert.deepEqual([report.agentsEnded, report.left], [0, 0]);
    assert.equal(status, `${TAKEN_OVER_MESSAGE}; ${agentElsewhereNote('the host of replica A')}`);
    assert.equal(alive(agent.pid!), true);
    process.kill(-agent.pid!, 'SIGKILL');
    for (const x of [a, b]) await x.bridge.shutdown(100);
    await peek.close();
  });
});
