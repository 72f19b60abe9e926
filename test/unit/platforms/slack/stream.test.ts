/**
 * createSlackStreaming against a stub WebClient: which conversations may stream, what goes in
 * chat.startStream, how Slack's refusals are classified in auto and native mode, 429s.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { webApi } from '@slack/bolt';
import { isTurnbridgeError } from '../../../../src/errors.js';
import { silentLogger } from '../../../../src/log.js';
import { createSlackStreaming } from '../../../../src/platforms/slack/stream.js';

const platformError = (error: string): Error => Object.assign(new Error(`An API error occurred: ${error}`), { code: 'slack_webapi_platform_error', data: { ok: false, error } });
const rateLimited = (secs: number): Error => Object.assign(new Error('rate limited'), { code: 'slack_webapi_rate_limited_error', retryAfter: secs });

function stubClient() {
  const calls: Array<{ method: string; args: Record<string, unknown> }> = [];
  const answers: Record<string, Array<Error | Record<string, unknown>>> = {};
  const method = (name: string) => async (args: Record<string, unknown>) => {
    calls.push({ method: name, args });
    const next = answers[name]?.shift();
    if (next instanceof Error) throw next;
    return next ?? { ok: true, ts: '1700000009.000009' };
  };
  const client = { chat: { startStream: method('chat.startStream'), appendStream: method('chat.appendStream'), stopStream: method('chat.stopStream') } };
  return { client: client as unknown as webApi.WebClient, calls, answers };
}

const channel = { space: 'T1', channel: 'C1', thread: '1700000000.000001' };

test('streams only in threads; the recipient goes with channel streams, not DMs; markdown_text mode', async () => {
  const { client, calls } = stubClient();
  const s = createSlackStreaming({ client, mode: 'auto', rateScale: 1, headroom: 0.9, logger: silentLogger });
  assert.equal(s.available!({ ...channel, thread: '' }), false);
  assert.equal(await s.start({ ...channel, thread: '' }, { markdown: 'x' }), null);
  assert.equal(calls.length, 0);
  const stream = await s.start(channel, { markdown: 'Hello', recipient: { id: 'U9' } });
  assert.ok(stream);
  assert.deepEqual(calls[0]!.args, { channel: 'C1', thread_ts: channel.thread, markdown_text: 'Hello', recipient_user_id: 'U9', recipient_team_id: 'T1' });
  await stream.append(' world');
  await stream.stop({ text: '' });
  assert.deepEqual(calls[1]!.args, { channel: 'C1', ts: '1700000009.000009', markdown_text: ' world' });
  assert.deepEqual(calls[2]!.args, { channel: 'C1', ts: '1700000009.000009' }, 'nothing to append: no markdown_text');
  assert.equal(stream.ref.id, 'C1:1700000009.000009');
  await s.start({ space: 'T1', channel: 'D1', thread: '1.1' }, { markdown: 'dm', recipient: { id: 'U9' } });
  assert.equal(calls[3]!.args.recipient_user_id, undefined);
  assert.deepEqual(s.budgets('append', channel).map((b) => b.perMinute), [90]);
  assert.deepEqual(s.budgets('start', channel).map((b) => b.perMinute), [18]);
  assert.notEqual(s.budgets('start', channel)[0]!.key, s.budgets('stop', channel)[0]!.key);
});

test('auto: a refusal is remembered for the workspace (channel_type_not_supported: for the channel)', async () => {
  const { client, calls, answers } = stubClient();
  const s = createSlackStreaming({ client, mode: 'auto', rateScale: 1, headroom: 0.9, logger: silentLogger });
  answers['chat.startStream'] = [platformError('channel_type_not_supported')];
  assert.equal(await s.start(channel, { markdown: 'x' }), null);
  assert.equal(s.available!(channel), false);
  assert.equal(s.available!({ ...channel, channel: 'C2' }), true);
  answers['chat.startStream'] = [platformError('unknown_method')];
  assert.equal(await s.start({ ...channel, channel: 'C2' }, { markdown: 'x' }), null);
  assert.equal(s.available!({ ...channel, channel: 'C3' }), false);
  assert.equal(s.available!({ ...channel, space: 'T2' }), true, 'another workspace is not affected');
  const before = calls.length;
  assert.equal(await s.start({ ...channel, channel: 'C3' }, { markdown: 'x' }), null);
  assert.equal(calls.length, before, 'no call once remembered');
});

test('native: refusals are thrown every time; other failures are thrown in auto too; 429 is RateLimitedError', async () => {
  const { client, answers } = stubClient();
  const s = createSlackStreaming({ client, mode: 'native', rateScale: 1, headroom: 0.9, logger: silentLogger });
  for (let i = 0; i < 2; i++) {
    answers['chat.startStream'] = [platformError('not_allowed')];
    await assert.rejects(s.start(channel, { markdown: 'x' }), (e: unknown) => isTurnbridgeError(e, 'TB_PLATFORM_ERROR') && /not_allowed/.test((e as Error).message));
  }
  assert.equal(s.available!(channel), true);
  answers['chat.startStream'] = [rateLimited(3)];
  await assert.rejects(s.start(channel, { markdown: 'x' }), (e: unknown) => isTurnbridgeError(e, 'TB_RATE_LIMITED') && (e as unknown as { retryAfterMs: number }).retryAfterMs === 3000);
  const auto = createSlackStreaming({ client, mode: 'auto', rateScale: 1, headroom: 0.9, logger: silentLogger });
  answers['chat.startStream'] = [platformError('invalid_arguments')];
  await assert.rejects(auto.start(channel, { markdown: 'x' }), (e: unknown) => isTurnbridgeError(e, 'TB_PLATFORM_ERROR'));
  assert.equal(auto.available!(channel), true, 'not a refusal: not remembered');
});

test('a stream that Slack ended is marked ended; a transient failure is not', async () => {
  const { client, answers } = stubClient();
  const s = createSlackStreaming({ client, mode: 'auto', rateScale: 1, headroom: 0.9, logger: silentLogger });
  const stream = (await s.start(channel, { markdown: 'x' }))!;
  answers['chat.appendStream'] = [Object.assign(new Error('HTTP 503'), { code: 'slack_webapi_http_error', statusCode: 503 })];
  await assert.rejects(stream.append('y'));
  assert.equal(stream.ended, false);
  answers['chat.appendStream'] = [rateLimited(1)];
  await assert.rejects(stream.append('y'), (e: unknown) => isTurnbridgeError(e, 'TB_RATE_LIMITED'));
  assert.equal(stream.ended, false);
  answers['chat.appendStream'] = [platformError('message_not_in_streaming_state')];
  await assert.rejects(stream.append('y'));
  assert.equal(stream.ended, true);
});
