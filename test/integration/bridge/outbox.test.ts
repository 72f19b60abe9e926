/**
 * The outbox through the bridge (src/bridge/outbox.ts): a real agent process leaves files in
 * $TURNBRIDGE_OUTBOX; after its reply the files are posted below it, refused ones are named in it,
 * and the outbox comes back with sent/ and skipped/. A bridge abandoned between a post and its
 * record ("kill -9" in-process: the state file kept, no shutdown) is recovered by a second one on
 * the same file: the post is found and not made again; one that never landed is made once.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createBridge } from '../../../src/bridge/index.js';
import { silentLogger } from '../../../src/log.js';
import { openState, createSqliteStore, type LedgerRecord } from '../../../src/state/index.js';
import { createRecordingSurface, type RecordingSurface } from '../../fakes/recording-surface.js';
import { agentProfile, conv, freshDataDir, makeConfig, makeMsg, waitFor } from '../../unit/bridge/helpers.js';

const PNG = '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489';

function bridgeOn(dataDir: string, surface: RecordingSurface, over: Parameters<typeof makeConfig>[0] = {}) {
  const config = makeConfig({ dataDir, ...over, agent: { ...makeConfig().agent, workspace: join(dataDir, 'workspace'), sandbox: 'off' } });
  const bridge = createBridge({
    config,
    logger: silentLogger,
    store: createSqliteStore({ file: join(dataDir, 'turnbridge.sqlite') }),
    loadProfile: async () => agentProfile('outbox.mjs'),
    recoverAtStart: true,
  });
  bridge.attach(surface);
  return { bridge, config };
}

/** The agent's report (its reply) in a conversation. */
function report(surface: RecordingSurface, c = conv('C1', 't1')): { outbox: string; cwd: string; before: Record<string, string[] | string> } | undefined {
  const text = surface.messagesIn(c).map((m) => m.content.text).find((t) => t.startsWith('{"outbox"'));
  return text ? JSON.parse(text.split('\n')[0]!) : undefined;
}

describe('outbox through the bridge', () => {
  it('two files (a PNG) go below the reply with their bytes and land in sent/; a link and an oversize file are named in the reply and go to skipped/', async () => {
    const dataDir = freshDataDir();
    writeFileSync(join(dataDir, 'secret.txt'), 'the bridge\'s secret');
    const surface = createRecordingSurface();
    const { bridge, config } = bridgeOn(dataDir, surface, { limits: { ...makeConfig().limits, outboxBytes: 1000 } });
    await bridge.recover();
    const c = conv('C1', 't1');
    const message = { hex: { 'plot.png': PNG }, files: { 'data.csv': 'a,b\n1,2\n' }, sized: { 'huge.bin': 5000 }, links: { 'secret.txt': join(dataDir, 'secret.txt') } };
    await bridge.handleMessage(makeMsg({ conversation: c, text: JSON.stringify(message) }));
    await waitFor(() => surface.filePosts().length === 1 && !!surface.messagesIn(c).at(-1) && !surface.messagesIn(c).at(-1)!.content.stopActionId, 'the files');
    const post = surface.filePosts()[0]!;
    assert.deepEqual(post.post.files.map((f) => [f.name, f.mimeType]), [['data.csv', 'text/csv'], ['plot.png', 'image/png']]);
    assert.deepEqual(post.post.files[1]!.data, Buffer.from(PNG, 'hex'));
    assert.equal(post.post.files[0]!.data.toString(), 'a,b\n1,2\n');
    // below the reply: posted after its final edit, anchored on its last message
    const reply = surface.messagesIn(c).at(-1)!;
    assert.equal(post.post.after?.id, reply.ref.id);
    assert.ok(post.postedAt >= reply.postedAt);
    const said = reply.content.text;
    assert.match(said, /Not sent from outbox\/: `huge\.bin`: 5 KiB, over the limit of 1 KiB a file \(limits\.outbox_bytes\)/);
    assert.match(said, /Not sent from outbox\/: `secret\.txt`: a symbolic link/);
    assert.doesNotMatch(JSON.stringify(surface.filePosts()), /the bridge's secret/);
    // the agent's outbox, as it finds it next turn: the posted files in sent/, the refused in skipped/
    const r = report(surface, c)!;
    assert.equal(r.outbox, join(config.agent.workspace, readdirSync(config.agent.workspace).find((d) => !d.startsWith('.'))!, 'outbox'));
    assert.equal(r.cwd, join(r.outbox, '..'), 'the outbox is in the agent\'s cwd (its conversation workspace)');
    // the record goes last, once the outbox is back
    let left: LedgerRecord[] = [{ kind: 'outbox' } as LedgerRecord];
    await waitFor(() => {
      void bridge.state.ledger.all().then((all) => (left = all.filter((x) => x.kind === 'outbox')));
      return left.length === 0;
    }, 'the outbox record gone');
    assert.deepEqual(readdirSync(join(r.outbox, 'sent')).sort(), ['data.csv', 'plot.png']);
    assert.deepEqual(readdirSync(join(r.outbox, 'skipped')).sort(), ['huge.bin', 'secret.txt']);
    await bridge.shutdown(1000);
  });

  it('limits.outbox_files: 0 leaves the outbox alone; a turn without files posts nothing', async () => {
    const dataDir = freshDataDir();
    const surface = createRecordingSurface();
    const { bridge } = bridgeOn(dataDir, surface, { limits: { ...makeConfig().limits, outboxFiles: 0 } });
    await bridge.recover();
    const c = conv('C2', 't2');
    await bridge.handleMessage(makeMsg({ conversation: c, text: JSON.stringify({ files: { 'a.txt': 'x' } }) }));
    await bridge.handleMessage(makeMsg({ conversation: c, text: JSON.stringify({}) }));
    await waitFor(() => surface.messagesIn(c).filter((m) => m.content.text.startsWith('{"outbox"') && !m.content.stopActionId).length === 2, 'two replies');
    assert.equal(surface.filePosts().length, 0);
    const second = surface.messagesIn(c).map((m) => m.content.text).filter((t) => t.startsWith('{"outbox"'))[1]!;
    assert.deepEqual(JSON.parse(second.split('\n')[0]!).before.outbox, ['a.txt'], 'left where the agent put it');
    await bridge.shutdown(1000);
  });

  for (const landed of [true, false]) {
    it(`a crash between the post and its record (the post ${landed ? 'landed' : 'never landed'}): recovery ${landed ? 'finds it and does not post it again' : 'posts it once'}`, async () => {
      const dataDir = freshDataDir();
      const c = conv('C3', 't3');
      // The first bridge's platform: the post lands (or not), and its answer never comes back.
      const surface = createRecordingSurface();
      const hung = new Promise<void>(() => {});
      const realPost = surface.postFiles!.bind(surface);
      let called = false;
      surface.postFiles = async (conversation, post) => {
        called = true;
        if (landed) await realPost(conversation, post);
        return hung;
      };
      const first = bridgeOn(dataDir, surface);
      await first.bridge.recover();
      await first.bridge.handleMessage(makeMsg({ conversation: c, text: JSON.stringify({ hex: { 'plot.png': PNG }, files: { 'notes.txt': 'n' } }) }));
      const peek = openState(createSqliteStore({ file: join(dataDir, 'turnbridge.sqlite') }), { logger: silentLogger });
      const pending = async () => (await peek.ledger.all()).find((r): r is Extract<LedgerRecord, { kind: 'outbox' }> => r.kind === 'outbox');
      let record: Extract<LedgerRecord, { kind: 'outbox' }> | undefined;
      await waitFor(() => {
        void pending().then((r) => (record = r));
        return record !== undefined && called;
      }, 'the outbox record and the post');
      assert.equal(record!.posts[0]!.state, 'pending');
      assert.ok(existsSync(record!.staged), 'the outbox is in staging');

      // "kill -9": the first bridge is abandoned. A second one on the same data recovers.
      // The second bridge's platform is the same one (what landed is there), answering again.
      const restarted: RecordingSurface = Object.create(surface);
      restarted.postFiles = realPost;
      const second = bridgeOn(dataDir, restarted);
      const rep = await second.bridge.recover();
      assert.equal(rep.outboxes, 1);
      assert.equal(surface.filePosts().length, 1, `exactly one message of files: ${JSON.stringify(surface.filePosts().map((p) => [p.post.marker, p.post.files.map((f) => f.name)]))}`);
      assert.deepEqual(surface.filePosts()[0]!.post.files.map((f) => f.name), ['notes.txt', 'plot.png']);
      assert.equal(await pending(), undefined, 'the record is gone');
      assert.deepEqual(readdirSync(join(record!.home, 'sent')).sort(), ['notes.txt', 'plot.png']);
      assert.equal(readFileSync(join(record!.home, 'sent', 'notes.txt'), 'utf8'), 'n');
      await peek.close();
      await second.bridge.shutdown(1000);
    });
  }

  it('an outbox left in staging with no record (the crash came before its plan) goes back to its conversation', async () => {
    const dataDir = freshDataDir();
    const surface = createRecordingSurface();
    const { bridge, config } = bridgeOn(dataDir, surface);
    await bridge.recover();
    const c = conv('C4', 't4');
    await bridge.handleMessage(makeMsg({ conversation: c, text: JSON.stringify({}) }));
    await waitFor(() => !!report(surface, c), 'a first turn');
    const home = report(surface, c)!.outbox;
    await bridge.shutdown(1000);
    // As takeOutbox leaves it: the outbox renamed into staging, nothing recorded.
    const { renameSync, writeFileSync: write } = await import('node:fs');
    write(join(home, 'late.txt'), 'late');
    const staged = join(config.agent.workspace, '.outbox-staging', `${home.split('/').at(-2)}@turn-x`);
    renameSync(home, staged);
    const again = bridgeOn(dataDir, surface);
    const rep = await again.bridge.recover();
    assert.equal(rep.outboxes, 1);
    assert.equal(readFileSync(join(home, 'late.txt'), 'utf8'), 'late');
    assert.equal(existsSync(staged), false);
    assert.equal(surface.filePosts().length, 0, 'it goes with the conversation\'s next turn');
    await again.bridge.shutdown(1000);
  });
});
