/**
 * The ledger and recovery in-process: a bridge "crashes" (is abandoned without shutdown, its
 * state file kept), a second bridge on the same file recovers through the same surface.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createBridge } from '../../../src/bridge/index.js';
import { silentLogger } from '../../../src/log.js';
import { openState, createSqliteStore, type LedgerRecord } from '../../../src/state/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { ANA, BOB, click, conv, fakeRunner, freshDataDir, makeConfig, makeMsg, makeProfile, waitFor } from './helpers.js';

function bridgeOn(file: string, surface: ReturnType<typeof createRecordingSurface>, runner = fakeRunner()) {
  const bridge = createBridge({
    config: makeConfig(),
    logger: silentLogger,
    store: createSqliteStore({ file }),
    runTurn: runner.runTurn,
    loadProfile: async () => makeProfile({ permission: true }),
    recoverAtStart: true,
  });
  bridge.attach(surface);
  return { bridge, runner };
}

async function poll<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() - start > 10_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

describe('ledger and recovery', () => {
  it('records a running reply, its prompt and the queued turns; a restart finalizes, expires and runs them in order', async () => {
    const file = join(freshDataDir(), 'turnbridge.sqlite');
    const surface = createRecordingSurface();
    const first = bridgeOn(file, surface);
    await first.bridge.recover();
    const source = { id: 'src-1', conversation: conv('C1', 't1') };
    await first.bridge.handleMessage(makeMsg({ text: 'long job', conversation: conv('C1', 't1'), source, attachmentRefs: [{ url: 'https://x/f', filename: 'f.txt' }] }));
    const call = await first.runner.started(1);
    call.handlers.onPartial?.({ text: 'half of the answer' });
    const decision = call.handlers.onPermissionRequest!({ requestId: '1', toolName: 'Bash', input: { command: 'ls' } }, { signal: new AbortController().signal });
    await first.bridge.handleMessage(makeMsg({ text: 'second', conversation: conv('C1', 't1') }));
    await first.bridge.handleMessage(makeMsg({ text: 'third', conversation: conv('C1', 't1') }));

    const peek = openState(createSqliteStore({ file }), { logger: silentLogger });
    const recs = await poll(async () => {
      const all = await peek.ledger.all();
      const reply = all.find((r): r is Extract<LedgerRecord, { kind: 'reply' }> => r.kind === 'reply' && r.message.text === 'long job');
      const ok = reply?.journal.parts.some((p) => p.content?.text === 'half of the answer') && all.some((r) => r.kind === 'prompt')
        && all.filter((r) => r.kind === 'reply' && r.turn === 'queued' && r.journal.parts.length > 0).length === 2;
      return ok ? all : undefined;
    }, 'the ledger');
    const queue = await peek.queue.list('test:T1:C1:t1');
    assert.deepEqual(queue.map((q) => q.message.text), ['second', 'third'], 'queued in arrival order');
    assert.equal(recs.find((r) => r.kind === 'reply' && r.message.text === 'long job' && r.turn === 'running') !== undefined, true);
    assert.deepEqual((recs.find((r) => r.kind === 'reply' && r.message.text === 'long job') as Extract<LedgerRecord, { kind: 'reply' }>).message.attachments, [{ url: 'https://x/f', filename: 'f.txt' }]);
    // In arrival order (the ledger lists records by id, not by arrival).
    const queuedRefs = ['second', 'third'].map((text) => recs.find((r): r is Extract<LedgerRecord, { kind: 'reply' }> =>
      r.kind === 'reply' && r.turn === 'queued' && r.message.text === text)!.journal.parts[0]!.ref.id);
    void decision;

    // "kill -9": the first bridge is never shut down. A second one on the same file recovers.
    const second = bridgeOn(file, surface);
    const report = await second.bridge.recover();
    assert.equal(report.replies, 1);
    assert.equal(report.prompts, 1);
    assert.equal(report.queued, 2);
    // The answer above the prompt stays as it was; the part below the prompt carries the end.
    const msgs = surface.messagesIn(conv('C1', 't1'));
    assert.ok(msgs.some((m) => m.content.text === 'half of the answer' && !m.content.status && !m.content.stopActionId));
    const live = msgs.find((m) => m.content.status === 'interrupted: the bridge restarted')!;
    assert.ok(live, 'the reply says it was interrupted');
    assert.equal(msgs.filter((m) => m.content.stopActionId && !queuedRefs.includes(m.ref.id)).length, 0, 'no Stop left but on the turns that run now');
    assert.equal(live.content.stopActionId, undefined);
    assert.match(live.content.rerunActionId ?? '', /^rerun-/);
    assert.equal(surface.prompts()[0]!.view.state, 'expired');
    assert.deepEqual(surface.reactions.map((r) => r.state).at(-1), 'failure');

    // The queued turns run in order, in their own "queued" messages.
    const run2 = await second.runner.started(1);
    assert.equal(run2.turn.message, 'second');
    assert.equal(second.runner.calls.length, 1, 'one at a time');
    run2.finish({ reply: 'answer two' });
    const run3 = await second.runner.started(2);
    assert.equal(run3.turn.message, 'third');
    run3.finish({ reply: 'answer three' });
    await waitFor(() => surface.contentOf(queuedRefs[1]!).text === 'answer three', 'third answered');
    assert.equal(surface.contentOf(queuedRefs[0]!).text, 'answer two');

    // Run again: not for bob; for ana once; the button goes.
    const rerun = live.content.rerunActionId!;
    const bob = click('rerun', rerun, BOB);
    await second.bridge.handleAction(bob);
    assert.match(bob.told[0] ?? '', /Only @ana/);
    await second.bridge.handleAction(click('rerun', rerun, ANA));
    const again = await second.runner.started(3);
    assert.equal(again.turn.message, 'long job');
    assert.equal(surface.contentOf(live.ref).rerunActionId, undefined, 'the Run again button is gone');
    const late = click('rerun', rerun, ANA);
    await second.bridge.handleAction(late);
    assert.match(late.told[0] ?? '', /no longer|already/);
    again.finish({ reply: 'done' });
    await second.bridge.shutdown(1000);
    assert.deepEqual(await peek.ledger.all(), [], 'nothing left in the ledger after a clean end');
    await peek.close();
  });

  it('a queued DM recovered after a restart keeps the DM\'s route (dm:), not the workspace route its space would match', async () => {
    const file = join(freshDataDir(), 'turnbridge.sqlite');
    const surface = createRecordingSurface();
    const config = makeConfig({ routes: [{ space: 'T1', profile: '/space.yaml' }], dm: { profile: '/dm.yaml' } });
    const on = () => {
      const runner = fakeRunner();
      const bridge = createBridge({
        config, logger: silentLogger, store: createSqliteStore({ file }), runTurn: runner.runTurn,
        loadProfile: async (path) => makeProfile({ dir: path }), recoverAtStart: true,
      });
      bridge.attach(surface);
      return { bridge, runner };
    };
    const first = on();
    await first.bridge.recover();
    const dm = conv('D0ANA', '');
    await first.bridge.handleMessage(makeMsg({ text: 'busy', conversation: dm, direct: true }));
    assert.equal((await first.runner.started(1)).profile.dir, '/dm.yaml');
    await first.bridge.handleMessage(makeMsg({ text: 'queued dm', conversation: dm, direct: true }));
    const peek = openState(createSqliteStore({ file }), { logger: silentLogger });
    await poll(async () => ((await peek.queue.list('test:T1:D0ANA:')).length === 1 ? true : undefined), 'the queued DM');
    await peek.close();
    // "kill -9": the next start runs the queued DM with the DM's profile.
    const second = on();
    await second.bridge.recover();
    const run = await second.runner.started(1);
    assert.equal(run.turn.message, 'queued dm');
    assert.equal(run.profile.dir, '/dm.yaml');
    run.finish({ reply: 'ok' });
    await second.bridge.shutdown(1000);
  });

  it('the files of the queued turns are fetched side by side at recovery, and each turn runs with its own, in order', async () => {
    const file = join(freshDataDir(), 'turnbridge.sqlite');
    const surface = createRecordingSurface();
    const first = bridgeOn(file, surface);
    await first.bridge.recover();
    await first.bridge.handleMessage(makeMsg({ text: 'busy' }));
    await first.runner.started(1);
    for (const name of ['a.txt', 'b.txt']) {
      await first.bridge.handleMessage(makeMsg({ text: `with ${name}`, attachmentRefs: [{ url: `https://files.test/${name}`, filename: name }] }));
    }
    const peek = openState(createSqliteStore({ file }), { logger: silentLogger });
    await poll(async () => ((await peek.queue.list('test:T1:C1:')).length === 2 ? true : undefined), 'two queued turns');
    await peek.close();

    // "kill -9"; the next start fetches each queued turn's files again, through a platform that
    // holds every fetch until both were asked for.
    const fetched: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    surface.fetchAttachments = async (refs) => {
      fetched.push(...refs.map((r) => r.filename ?? r.url));
      await held;
      return { attachments: refs.map((r) => ({ kind: 'file' as const, url: `file:///tmp/${r.filename}`, name: r.filename })), notices: [], cleanup: async () => {} };
    };
    const second = bridgeOn(file, surface);
    const recovering = second.bridge.recover();
    await waitFor(() => fetched.length === 2, 'both fetches asked for before either landed');
    assert.deepEqual(fetched, ['a.txt', 'b.txt']);
    assert.equal(second.runner.calls.length, 0, 'no turn starts without its files');
    release();
    assert.equal((await recovering).queued, 2);
    const runA = await second.runner.started(1);
    assert.equal(runA.turn.message, 'with a.txt');
    assert.deepEqual(runA.turn.attachments?.map((a) => a.url), ['file:///tmp/a.txt']);
    runA.finish({ reply: 'one' });
    const runB = await second.runner.started(2);
    assert.equal(runB.turn.message, 'with b.txt');
    assert.deepEqual(runB.turn.attachments?.map((a) => a.url), ['file:///tmp/b.txt']);
    runB.finish({ reply: 'two' });
    await second.bridge.shutdown(1000);
  });
});
