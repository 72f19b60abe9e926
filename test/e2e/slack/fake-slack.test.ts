/** The fake itself: it must enforce what the e2e tests rely on (budgets, limits, auth on files). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webApi } from '@slack/bolt';
import { FakeSlack, SLACK_BUDGETS } from '../../fakes/slack/index.js';

async function call(fake: FakeSlack, method: string, params: Record<string, string>, token = fake.botToken): Promise<{ status: number; retryAfter: string | null; body: any }> {
  const res = await fetch(`${fake.apiUrl}${method}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString() });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

test('chat.update budget: Slack\'s 50 per window (scaled), then 429 + Retry-After; the window slides', async () => {
  const fake = await FakeSlack.start({ timeScale: 30 }); // 60 s -> 2 s windows
  try {
    const posted = await call(fake, 'chat.postMessage', { channel: 'C1', text: 'x' });
    const ts = posted.body.ts as string;
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => call(fake, 'chat.update', { channel: 'C1', ts, text: `v${i}` })));
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.find((r) => r.status === 429);
    assert.equal(ok, 50, 'exactly the budget went through');
    assert.ok(['1', '2'].includes(limited!.retryAfter ?? ''), 'Retry-After in whole seconds, at most one window');
    assert.deepEqual(limited!.body, { ok: false, error: 'ratelimited' });
    await new Promise((r) => setTimeout(r, 2100));
    assert.equal((await call(fake, 'chat.update', { channel: 'C1', ts, text: 'later' })).status, 200);
    assert.ok(fake.rateLimitedCount >= 1);
  } finally {
    await fake.close();
  }
});

test('documented limits: chat.update text over 4,000, markdown over 12,000, bad tokens, unknown methods', async () => {
  const fake = await FakeSlack.start();
  try {
    const ts = (await call(fake, 'chat.postMessage', { channel: 'C1', text: 'x' })).body.ts as string;
    assert.equal((await call(fake, 'chat.update', { channel: 'C1', ts, text: 'y'.repeat(4001) })).body.error, 'msg_too_long');
    const blocks = JSON.stringify([{ type: 'markdown', text: 'a'.repeat(7000) }, { type: 'markdown', text: 'b'.repeat(5001) }]);
    assert.equal((await call(fake, 'chat.postMessage', { channel: 'C1', text: 'x', blocks })).body.error, 'msg_blocks_too_long');
    assert.equal((await call(fake, 'chat.postMessage', { channel: 'C1', text: 'x' }, 'xoxb-wrong')).body.error, 'invalid_auth');
    assert.equal((await call(fake, 'apps.connections.open', {}, fake.botToken)).body.error, 'not_allowed_token_type');
    assert.match((await call(fake, 'apps.connections.open', {}, fake.appToken)).body.url, /^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=/);
    assert.equal((await call(fake, 'chat.nope', {})).body.error, 'unknown_method');
    assert.deepEqual(fake.calls.map((c) => c.method).slice(0, 3), ['chat.postMessage', 'chat.update', 'chat.postMessage']);
    assert.ok(fake.calls.every((c) => !JSON.stringify(c).includes(fake.botToken)), 'the record holds no token');
  } finally {
    await fake.close();
  }
});

test('files: bytes with the bot token; without it a 302 to an HTML sign-in page', async () => {
  const fake = await FakeSlack.start();
  try {
    const f = fake.addFile('a.txt', 'text/plain', Buffer.from('hello'));
    const good = await fetch(f.url_private_download, { headers: { authorization: `Bearer ${fake.botToken}` } });
    assert.equal(await good.text(), 'hello');
    const bare = await fetch(f.url_private_download, { redirect: 'manual' });
    assert.equal(bare.status, 302);
    await bare.body?.cancel();
    const followed = await fetch(f.url_private_download);
    assert.equal(followed.status, 200);
    assert.match(followed.headers.get('content-type') ?? '', /text\/html/);
    await followed.body?.cancel();
  } finally {
    await fake.close();
  }
});

test('streaming rules: thread_ts and recipient required in channels, one mode per stream, 12,000 cap, no update while streaming, Tier 2 budget', async () => {
  const fake = await FakeSlack.start({ timeScale: 30 });
  try {
    const recipient = { recipient_user_id: 'U1', recipient_team_id: 'T0FAKE' };
    assert.equal((await call(fake, 'chat.startStream', { channel: 'C1', markdown_text: 'hi', ...recipient })).body.error, 'invalid_arguments', 'no thread_ts');
    assert.equal((await call(fake, 'chat.startStream', { channel: 'C1', thread_ts: '1.1', markdown_text: 'hi' })).body.error, 'invalid_arguments', 'no recipient in a channel');
    assert.equal((await call(fake, 'chat.startStream', { channel: 'C1', thread_ts: '1.1', markdown_text: 'a', chunks: JSON.stringify([{ type: 'markdown_text', text: 'b' }]), ...recipient })).body.error,
      'cannot_provide_both_markdown_text_and_chunks');
    const dm = await call(fake, 'chat.startStream', { channel: 'D1', thread_ts: '1.1', markdown_text: 'in a DM no recipient is needed' });
    assert.equal(dm.body.ok, true);
    const started = await call(fake, 'chat.startStream', { channel: 'C1', thread_ts: '1.1', markdown_text: 'Hello', ...recipient });
    const ts = started.body.ts as string;
    assert.equal((await call(fake, 'chat.update', { channel: 'C1', ts, text: 'x' })).body.error, 'streaming_state_conflict');
    assert.equal((await call(fake, 'chat.appendStream', { channel: 'C1', ts, chunks: JSON.stringify([{ type: 'markdown_text', text: 'x' }]) })).body.error, 'streaming_mode_mismatch');
    assert.equal((await call(fake, 'chat.appendStream', { channel: 'C1', ts, markdown_text: 'y'.repeat(12_000) })).body.error, 'msg_too_long');
    assert.equal((await call(fake, 'chat.appendStream', { channel: 'C1', ts, markdown_text: ' world' })).body.ok, true);
    assert.equal((await call(fake, 'chat.stopStream', { channel: 'C1', ts, markdown_text: '!' })).body.ok, true);
    assert.equal(fake.message('C1', ts)!.blocks[0]!.text, 'Hello world!');
    assert.equal((await call(fake, 'chat.appendStream', { channel: 'C1', ts, markdown_text: 'late' })).body.error, 'message_not_in_streaming_state');
    assert.equal((await call(fake, 'chat.update', { channel: 'C1', ts, text: 'after the stream' })).body.ok, true, 'a stopped stream can be edited');
    fake.refuseStreaming('unknown_method');
    assert.equal((await call(fake, 'chat.startStream', { channel: 'C1', thread_ts: '1.1', markdown_text: 'x', ...recipient })).body.error, 'unknown_method');
    fake.refuseStreaming(undefined);
    // Tier 2: 20 starts per (scaled) minute for the workspace, then 429
    const burst = await Promise.all(Array.from({ length: 25 }, () => call(fake, 'chat.startStream', { channel: 'D1', thread_ts: '1.1', markdown_text: 'x' })));
    assert.ok(burst.filter((r) => r.status === 429).length >= 5, 'the start budget is enforced');
  } finally {
    await fake.close();
  }
});

test('chat.postEphemeral: shown in a channel and in an active thread, not in a thread with no reply yet (as Slack documents)', async () => {
  const fake = await FakeSlack.start();
  try {
    const parent = (await call(fake, 'chat.postMessage', { channel: 'C1', text: 'parent' })).body.ts as string;
    await call(fake, 'chat.postEphemeral', { channel: 'C1', user: 'U1', text: 'in the channel' });
    await call(fake, 'chat.postEphemeral', { channel: 'C1', user: 'U1', text: 'no thread yet', thread_ts: parent });
    await call(fake, 'chat.postMessage', { channel: 'C1', text: 'a reply', thread_ts: parent });
    await call(fake, 'chat.postEphemeral', { channel: 'C1', user: 'U1', text: 'active thread', thread_ts: parent });
    assert.deepEqual(fake.ephemerals.map((e) => [e.text, e.shown]), [['in the channel', true], ['no thread yet', false], ['active thread', true]]);
  } finally {
    await fake.close();
  }
});

test('external uploads: files.uploadV2 (real WebClient) shares both files in one thread reply with their bytes; the documented refusals', async () => {
  const fake = await FakeSlack.start();
  try {
    const parent = (await call(fake, 'chat.postMessage', { channel: 'C1', text: 'parent' })).body.ts as string;
    const client = new webApi.WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3]);
    const res = await client.files.uploadV2({
      channel_id: 'C1', thread_ts: parent,
      blocks: [{ type: 'context', block_id: 'tb-files-x', elements: [{ type: 'mrkdwn', text: 'two files' }] }],
      file_uploads: [{ file: png, filename: 'plot.png' }, { file: Buffer.from('a,b\n1,2\n'), filename: 'data.csv' }],
    });
    assert.equal(res.ok, true);
    const shared = fake.botMessages('C1', parent).filter((m) => m.files?.length);
    assert.equal(shared.length, 1, 'one message carries both files');
    const m = shared[0]!;
    assert.deepEqual(m.files!.map((f) => f.name), ['plot.png', 'data.csv']);
    assert.equal(m.blocks[0]!.block_id, 'tb-files-x', 'the blocks are the message\'s (no initial_comment)');
    assert.deepEqual(fake.fileBytes(m.files![0]!.id), png);
    // url_private serves them to the bot token, as a person's files
    const got = await fetch(m.files![1]!.url_private, { headers: { authorization: `Bearer ${fake.botToken}` } });
    assert.equal(await got.text(), 'a,b\n1,2\n');
    // conversations.replies shows the files and the block id
    const replies = await call(fake, 'conversations.replies', { channel: 'C1', ts: parent });
    const listed = (replies.body.messages as Array<{ files?: Array<{ name: string }>; blocks: Array<{ block_id?: string }> }>).find((x) => x.files);
    assert.deepEqual(listed?.files?.map((f) => f.name), ['plot.png', 'data.csv']);
    assert.equal(listed?.blocks[0]?.block_id, 'tb-files-x');
    // refusals: an empty file, a completion of a file already completed, an upload never sent
    assert.equal((await call(fake, 'files.getUploadURLExternal', { filename: 'empty.txt', length: '0' })).body.error, 'missing_argument');
    const again = await call(fake, 'files.completeUploadExternal', { files: JSON.stringify([{ id: m.files![0]!.id }]), channel_id: 'C1' });
    assert.equal(again.body.error, 'file_not_found', 'completeUploadExternal can only be called once');
    const unsent = (await call(fake, 'files.getUploadURLExternal', { filename: 'x.txt', length: '3' })).body.file_id as string;
    assert.equal((await call(fake, 'files.completeUploadExternal', { files: JSON.stringify([{ id: unsent }]), channel_id: 'C1' })).body.error, 'file_not_found');
    assert.equal(fake.pendingUploads, 1);
    // the upload POST must carry the announced length
    const ticket = await call(fake, 'files.getUploadURLExternal', { filename: 'y.txt', length: '5' });
    assert.equal((await fetch(ticket.body.upload_url, { method: 'POST', body: 'abc' })).status, 400);
    assert.equal((await fetch(ticket.body.upload_url, { method: 'POST', body: 'abcde' })).status, 200, 'raw bytes are accepted');
    // Tier 4 budgets are on
    assert.equal(SLACK_BUDGETS['files.completeUploadExternal']!.limit, 100);
  } finally {
    await fake.close();
  }
});
