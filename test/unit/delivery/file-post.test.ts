/**
 * Files through delivery (src/delivery/file-post.ts): grouped into messages a platform takes,
 * paced and retried like any post, and never posted twice when a failure hid a post that landed.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createDelivery, groupFiles } from '../../../src/delivery/index.js';
import type { FilePost } from '../../../src/delivery/surface.js';
import { TurnbridgeError } from '../../../src/errors.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { advance, conv, useFakeClock } from './helpers.js';

describe('groupFiles', () => {
  it('cuts by files a message and bytes a message, in order; a file as large as a message goes alone', () => {
    const files = (sizes: number[]) => sizes.map((size, i) => ({ name: `f${i}`, size }));
    assert.deepEqual(groupFiles(files(Array(23).fill(1)), { maxFiles: 10, maxMessageBytes: 100, maxFileBytes: 100 }).map((g) => g.length), [10, 10, 3]);
    const bySize = groupFiles(files([40, 40, 40, 100, 5]), { maxFiles: 10, maxMessageBytes: 100, maxFileBytes: 100 });
    assert.deepEqual(bySize.map((g) => g.map((f) => f.size)), [[40, 40], [40], [100], [5]]);
    assert.deepEqual(groupFiles([], { maxFiles: 10, maxMessageBytes: 1, maxFileBytes: 1 }), []);
  });
});

/** A recording surface that takes files: `landed` holds what the platform shows. */
function filesSurface(fail: Array<'lost-answer' | 'not-sent' | 'permanent'>) {
  const s = createRecordingSurface();
  const landed: FilePost[] = [];
  let sends = 0;
  let looks = 0;
  Object.assign(s, {
    async postFiles(_c: unknown, post: FilePost) {
      sends++;
      const f = fail.shift();
      if (f === 'permanent') throw new TurnbridgeError('TB_PLATFORM_ERROR', 'too large', { permanent: true });
      if (f === 'not-sent') throw new Error('connect ECONNREFUSED');
      landed.push(post);
      if (f === 'lost-answer') throw new Error('socket hang up (the post landed, its answer did not)');
    },
    fileLimits: () => ({ maxFiles: 10, maxMessageBytes: 1000, maxFileBytes: 1000 }),
    fileBudgets: () => [{ key: 'files', perMinute: 600, burst: 5 }],
    async findFiles(_c: unknown, q: { marker: string }) {
      looks++;
      return landed.some((p) => p.marker === q.marker);
    },
  });
  return { surface: s, landed, counts: () => ({ sends, looks }) };
}

const post = (marker: string): FilePost => ({ files: [{ name: 'plot.png', data: Buffer.from('png'), mimeType: 'image/png' }], caption: 'plot.png', marker });

async function settle<T>(t: TestContext, p: Promise<T>): Promise<T> {
  let out: { v: T } | undefined;
  void p.then((v) => (out = { v }));
  for (let spent = 0; !out; spent += 100) {
    if (spent > 120_000) throw new Error('did not settle');
    await advance(t, 100);
  }
  return out.v;
}

describe('Delivery.postFiles', () => {
  it('a failure after the post landed: it looks before trying again, and the post shows once', async (t) => {
    useFakeClock(t);
    const { surface, landed, counts } = filesSurface(['lost-answer']);
    const d = createDelivery(surface);
    assert.deepEqual(await settle(t, d.postFiles(conv, post('m-1'))), { ok: true });
    assert.equal(landed.length, 1, 'not posted twice');
    assert.deepEqual(counts(), { sends: 1, looks: 1 });
    await d.close();
  });

  it('a failure before it landed: it looks, finds nothing, and posts again', async (t) => {
    useFakeClock(t);
    const { surface, landed, counts } = filesSurface(['not-sent', 'not-sent']);
    const d = createDelivery(surface);
    assert.deepEqual(await settle(t, d.postFiles(conv, post('m-2'))), { ok: true });
    assert.equal(landed.length, 1);
    assert.deepEqual(counts(), { sends: 3, looks: 2 });
    await d.close();
  });

  it('a permanent refusal gives up at once and says why; a platform without files says it takes none', async (t) => {
    useFakeClock(t);
    const { surface, counts } = filesSurface(['permanent']);
    const d = createDelivery(surface);
    const r = await settle(t, d.postFiles(conv, post('m-3')));
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.why, 'permanent');
    assert.match(!r.ok ? r.detail : '', /too large/);
    assert.deepEqual(counts(), { sends: 1, looks: 0 });
    const noFiles = createRecordingSurface();
    delete (noFiles as Partial<typeof noFiles>).postFiles;
    delete (noFiles as Partial<typeof noFiles>).findFiles;
    const plain = createDelivery(noFiles);
    const none = await plain.postFiles(conv, post('m-4'));
    assert.equal(!none.ok && none.why, 'unsupported');
    assert.equal(await plain.findFiles(conv, { marker: 'm-4', names: ['plot.png'] }), 'absent');
    await d.close();
    await plain.close();
  });

  it('findFiles answers found / absent through the limiter', async (t) => {
    useFakeClock(t);
    const { surface } = filesSurface([]);
    const d = createDelivery(surface);
    await settle(t, d.postFiles(conv, post('m-5')));
    assert.equal(await settle(t, d.findFiles(conv, { marker: 'm-5', names: ['plot.png'] })), 'found');
    assert.equal(await settle(t, d.findFiles(conv, { marker: 'm-6', names: ['plot.png'] })), 'absent');
    await d.close();
  });
});
