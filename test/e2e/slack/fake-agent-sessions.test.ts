/**
 * The fake's agent sessions hold to what Slack documents (docs.slack.dev/ai/agent-sessions, the
 * agents.sessions.setStatus / rename, setSuggestedPrompts and agent_session_stopped pages): the
 * bridge's tests lean on these answers, so they are checked here on their own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeSlack } from '../../fakes/slack/index.js';

async function call(fake: FakeSlack, method: string, params: Record<string, unknown>): Promise<{ body: any; scopes: string | null }> {
  const res = await fetch(`${fake.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fake.botToken}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(params),
  });
  return { body: await res.json(), scopes: res.headers.get('x-oauth-scopes') };
}

/** A Request URL that records the Events API bodies it gets (the fake in HTTP mode signs them). */
async function eventSink(fake: FakeSlack): Promise<{ events: any[]; server: Server }> {
  const events: any[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      events.push(JSON.parse(body).event);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fake.http = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`, secret: 's' };
  return { events, server };
}

test('an app not declared an agent: setStatus and rename answer not_authorized, suggested prompts missing_scope, no session', async () => {
  const fake = await FakeSlack.start();
  try {
    const set = await call(fake, 'agents.sessions.setStatus', { channel_id: 'C1', thread_ts: '1.1', status: 'processing' });
    assert.equal(set.body.error, 'not_authorized');
    assert.ok(!set.scopes!.split(',').includes('assistant:write'), 'no assistant:write without the agent declaration');
    assert.equal((await call(fake, 'agents.sessions.rename', { channel_id: 'C1', thread_ts: '1.1', title: 't' })).body.error, 'not_authorized');
    assert.equal((await call(fake, 'assistant.threads.setSuggestedPrompts', { channel_id: 'D1', prompts: [{ title: 'a', message: 'b' }] })).body.error, 'missing_scope');
    assert.equal(fake.session('C1', '1.1'), undefined);
  } finally {
    await fake.close();
  }
});

test('setStatus: documented arguments and errors; title and initiator kept from creation only; rename', async () => {
  let now = 1_000;
  const fake = await FakeSlack.start({ agent: true, channels: { C1: { member: true }, C9: { member: false } }, now: () => now, sessionTimeoutMs: 3_600_000 });
  try {
    const err = async (params: Record<string, unknown>) => (await call(fake, 'agents.sessions.setStatus', params)).body.error;
    assert.equal(await err({ channel_id: 'C1', status: 'processing' }), 'thread_ts_required');
    assert.equal(await err({ channel_id: 'C1', thread_ts: '1.1', status: 'thinking' }), 'invalid_status');
    assert.equal(await err({ channel_id: 'C1', thread_ts: '1.1' }), 'invalid_arguments');
    assert.equal(await err({ channel_id: 'C9', thread_ts: '1.1', status: 'processing' }), 'not_authorized', 'the bot is not in C9');
    assert.equal(await err({ channel_id: 'C1', thread_ts: '1.1', status: 'processing', title: 'x'.repeat(201) }), 'invalid_arguments');
    assert.equal((await call(fake, 'agents.sessions.rename', { channel_id: 'C1', thread_ts: '1.1', title: 'early' })).body.error, 'session_not_found');

    const first = await call(fake, 'agents.sessions.setStatus', { channel_id: 'C1', thread_ts: '1.1', status: 'processing', title: 'Fix the build', initiator_user_id: 'U0ANA' });
    assert.deepEqual(first.body, { ok: true, status: 'processing', agent_status: 'processing', title: 'Fix the build' }, 'subscribed to agent_session_stopped: no warning');
    const again = await call(fake, 'agents.sessions.setStatus', { channel_id: 'C1', thread_ts: '1.1', status: 'suspended', title: 'Other', initiator_user_id: 'U0BEN' });
    assert.equal(again.body.title, 'Fix the build', 'title only on creation');
    assert.deepEqual({ ...fake.session('C1', '1.1') }, { channel: 'C1', thread_ts: '1.1', status: 'suspended', title: 'Fix the build', initiator: 'U0ANA', since: 1_000, history: ['processing', 'suspended'] });
    assert.deepEqual((await call(fake, 'agents.sessions.rename', { channel_id: 'C1', thread_ts: '1.1', title: 'Renamed' })).body, { ok: true, title: 'Renamed' });
    assert.equal((await call(fake, 'agents.sessions.rename', { channel_id: 'C1', thread_ts: '1.1', title: '' })).body.error, 'invalid_arguments');

    // processing times out to active after the hour; sending processing again restarts it
    await call(fake, 'agents.sessions.setStatus', { channel_id: 'C1', thread_ts: '1.1', status: 'processing' });
    now += 3_000_000;
    await call(fake, 'agents.sessions.setStatus', { channel_id: 'C1', thread_ts: '1.1', status: 'processing' });
    now += 3_000_000;
    assert.equal(fake.session('C1', '1.1')!.status, 'processing', 'the second processing restarted the hour');
    now += 600_001;
    assert.equal(fake.session('C1', '1.1')!.status, 'active', 'an hour in processing: active');
  } finally {
    await fake.close();
  }
});

test('setStatus without chat:write: missing_scope; without the agent_session_stopped subscription: the warning', async () => {
  const fake = await FakeSlack.start({ agent: true, scopes: ['assistant:write'] });
  try {
    assert.equal((await call(fake, 'agents.sessions.setStatus', { channel_id: 'C1', thread_ts: '1.1', status: 'active' })).body.error, 'missing_scope');
  } finally {
    await fake.close();
  }
  const unsubscribed = await FakeSlack.start({ agent: true, events: ['app_mention', 'message.im'] });
  try {
    const { body } = await call(unsubscribed, 'agents.sessions.setStatus', { channel_id: 'D1', thread_ts: '1.1', status: 'processing' });
    assert.equal(body.ok, true);
    assert.deepEqual(body.response_metadata, { warnings: ['missing_agent_session_stopped_event_subscription'] });
    await assert.rejects(unsubscribed.nativeStop({ channel: 'D1', threadTs: '1.1', user: 'U0ANA' }), /does not subscribe to agent_session_stopped/);
  } finally {
    await unsubscribed.close();
  }
});

test('streams make sessions; the native Stop stops them, sends agent_session_stopped and leaves the status to the app', async () => {
  const fake = await FakeSlack.start({ agent: true });
  const sink = await eventSink(fake);
  try {
    const root = await fake.userMessage({ channel: 'C1', user: 'U0ANA', text: 'hello' });
    await assert.rejects(fake.nativeStop({ channel: 'C1', threadTs: root.ts, user: 'U0ANA' }), /session is absent/);
    const start = await call(fake, 'chat.startStream', { channel: 'C1', thread_ts: root.ts, recipient_user_id: 'U0ANA', recipient_team_id: 'T0FAKE', markdown_text: 'part one' });
    assert.equal(start.body.ok, true);
    assert.equal(fake.session('C1', root.ts)!.status, 'processing', 'chat.startStream creates the session, processing');
    assert.equal(fake.session('C1', root.ts)!.initiator, 'U0ANA', 'its initiator the root message\'s author');

    const { stopped } = await fake.nativeStop({ channel: 'C1', threadTs: root.ts, user: 'U0BEN' });
    assert.deepEqual(stopped, [start.body.ts]);
    const ev = sink.events.find((e) => e.type === 'agent_session_stopped');
    assert.deepEqual({ ...ev, event_ts: 'x' }, { type: 'agent_session_stopped', channel: 'C1', thread_ts: root.ts, user: 'U0BEN', streaming_message_ts: [start.body.ts], event_ts: 'x' });
    assert.equal(fake.session('C1', root.ts)!.status, 'processing', 'the status does not move by itself');
    assert.equal((await call(fake, 'chat.appendStream', { channel: 'C1', ts: start.body.ts, markdown_text: ' more' })).body.error, 'stopped_by_user');
    assert.equal((await call(fake, 'chat.stopStream', { channel: 'C1', ts: start.body.ts })).body.error, 'message_not_in_streaming_state');

    const second = await call(fake, 'chat.startStream', { channel: 'C1', thread_ts: root.ts, recipient_user_id: 'U0ANA', recipient_team_id: 'T0FAKE', markdown_text: 'again' });
    await call(fake, 'chat.stopStream', { channel: 'C1', ts: second.body.ts, session_status: 'suspended' });
    assert.equal(fake.session('C1', root.ts)!.status, 'suspended', 'stopStream sets session_status');
    const third = await call(fake, 'chat.startStream', { channel: 'C1', thread_ts: root.ts, recipient_user_id: 'U0ANA', recipient_team_id: 'T0FAKE', markdown_text: 'and' });
    await call(fake, 'chat.stopStream', { channel: 'C1', ts: third.body.ts });
    assert.deepEqual(fake.session('C1', root.ts)!.history, ['processing', 'processing', 'suspended', 'processing', 'active'], 'stopStream defaults to active');
  } finally {
    await fake.close();
    sink.server.close();
  }
});

test('suggested prompts: up to four with title and message; with thread_ts an agent app\'s call silently does nothing', async () => {
  const fake = await FakeSlack.start({ agent: true });
  try {
    const prompts = [{ title: 'Status', message: 'What is the build status?' }];
    assert.deepEqual((await call(fake, 'assistant.threads.setSuggestedPrompts', { channel_id: 'D1', prompts, title: 'Try' })).body, { ok: true });
    assert.equal((await call(fake, 'assistant.threads.setSuggestedPrompts', { channel_id: 'D1', prompts: Array(5).fill(prompts[0]) })).body.error, 'invalid_arguments');
    assert.equal((await call(fake, 'assistant.threads.setSuggestedPrompts', { channel_id: 'D1', prompts: [{ title: 'no message' }] })).body.error, 'invalid_arguments');
    assert.equal((await call(fake, 'assistant.threads.setSuggestedPrompts', { channel_id: 'D1', thread_ts: '1.1', prompts })).body.ok, true);
    assert.deepEqual(fake.suggestedPrompts.map((c) => c.ignored), [false, true]);
  } finally {
    await fake.close();
  }
});
