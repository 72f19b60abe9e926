/**
 * HTTP mode (SLACK_SIGNING_SECRET, no app token): Bolt's HTTP receiver with signed requests.
 * A bad signature or a stale timestamp is rejected and runs nothing; an HTTP retry of the same
 * event_id runs once.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_USER, FakeSlack, signSlackRequest } from '../../fakes/slack/index.js';
import { RecordingBridge, baseConfig, until } from './harness.js';
import { silentLogger } from '../../../src/log.js';
import { createSlackPlatform, type SlackPlatform } from '../../../src/platforms/slack/index.js';

const SECRET = 'test-signing-secret';
let fake: FakeSlack;
let platform: SlackPlatform;
let url = '';
const bridge = new RecordingBridge();

async function post(body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

before(async () => {
  fake = await FakeSlack.start();
  platform = createSlackPlatform({
    config: baseConfig({ SLACK_BOT_TOKEN: fake.botToken, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: fake.apiUrl, SLACK_HTTP_PORT: '0' }),
    logger: silentLogger,
  });
  assert.equal(platform.config.mode, 'http');
  await platform.start(bridge);
  assert.equal(platform.status().state, 'ready');
  const addr = platform.httpAddress()!;
  url = `http://${addr.host}:${addr.port}/slack/events`;
});

after(async () => {
  await platform.stop();
  await fake.close();
});

test('url_verification answers the challenge only when signed', async () => {
  const body = JSON.stringify({ type: 'url_verification', challenge: 'chal-123', token: 'x' });
  const ok = await post(body, signSlackRequest(SECRET, body));
  assert.equal(ok.status, 200);
  assert.equal((await ok.json() as { challenge: string }).challenge, 'chal-123');
  const bad = await post(body, {});
  assert.equal(bad.status, 401);
  await bad.body?.cancel();
});

test('a signed event runs; bad signature, wrong secret and stale timestamp are rejected; a retry runs once', async () => {
  const ts = fake.nextTs();
  const event = { type: 'app_mention', user: 'U0ANA', text: `<@${BOT_USER}> over http`, ts, channel: 'C0GEN', event_ts: ts };
  const body = JSON.stringify(fake.eventBody(event, 'EvHTTP1'));

  const forged = await post(body, { ...signSlackRequest(SECRET, body), 'x-slack-signature': 'v0=' + '0'.repeat(64) });
  assert.equal(forged.status, 401);
  const wrongSecret = await post(body, signSlackRequest('not-the-secret', body));
  assert.equal(wrongSecret.status, 401);
  const stale = await post(body, signSlackRequest(SECRET, body, Math.floor(Date.now() / 1000) - 6 * 60));
  assert.equal(stale.status, 401);
  const otherBody = await post(body.replace('over http', 'tampered'), signSlackRequest(SECRET, body));
  assert.equal(otherBody.status, 401);

  const good = await post(body, signSlackRequest(SECRET, body));
  assert.equal(good.status, 200);
  const retry = await post(body, { ...signSlackRequest(SECRET, body), 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
  assert.equal(retry.status, 200);
  const m = await bridge.waitFor(() => bridge.messages[0], 'the message');
  assert.equal(m.text, 'over http');
  assert.deepEqual(m.conversation, { space: 'T0FAKE', channel: 'C0GEN', thread: ts });

  // a later event proves the retry has been processed (and dropped) by now
  const ts2 = fake.nextTs();
  const body2 = JSON.stringify(fake.eventBody({ type: 'message', channel_type: 'im', user: 'U0ANA', text: 'dm over http', ts: ts2, channel: 'D0ANA', event_ts: ts2 }, 'EvHTTP2'));
  assert.equal((await post(body2, signSlackRequest(SECRET, body2))).status, 200);
  await bridge.waitFor(() => bridge.messages.length >= 2, 'the second message');
  assert.deepEqual(bridge.messages.map((x) => x.text), ['over http', 'dm over http']);
});

test('a signed button click is acked and handed to the bridge', async () => {
  const payload = {
    type: 'block_actions', user: { id: 'U0ANA', username: 'ana', name: 'ana', team_id: 'T0FAKE' }, api_app_id: 'A0FAKE', token: 'x',
    container: { type: 'message', message_ts: '1700000000.000001', channel_id: 'C0GEN' }, trigger_id: 't', team: { id: 'T0FAKE', domain: 'fake' },
    channel: { id: 'C0GEN', name: 'general' }, message: { type: 'message', ts: '1700000000.000001', text: '' },
    response_url: `${fake.baseUrl}/respond/abc`,
    actions: [{ action_id: 'tb_stop', block_id: 'b', value: 'stop-9', type: 'button', action_ts: '1' }],
  };
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...signSlackRequest(SECRET, body) } });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const ev = await until(() => bridge.actions[0], 'the action');
  assert.deepEqual([ev.action, ev.id, ev.user.id], ['stop', 'stop-9', 'U0ANA']);
});

test('without SLACK_HTTP_PORT, /slack/events is mounted on the bridge\'s one HTTP server', async () => {
  const { createHttpServer } = await import('../../../src/http/index.js');
  const http = createHttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
  const base = await http.listen();
  const local = new RecordingBridge();
  const p = createSlackPlatform({
    config: baseConfig({ SLACK_BOT_TOKEN: fake.botToken, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: fake.apiUrl }),
    logger: silentLogger,
    http,
  });
  try {
    await p.start(local);
    assert.equal(p.status().state, 'ready');
    assert.equal(p.httpAddress(), undefined, 'no port of its own');
    const ts = fake.nextTs();
    const body = JSON.stringify(fake.eventBody({ type: 'message', channel_type: 'im', user: 'U0BEN', text: 'via the shared server', ts, channel: 'D0BEN', event_ts: ts }, 'EvMOUNT1'));
    const target = new URL('slack/events', base).href;
    const bad = await fetch(target, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    assert.equal(bad.status, 401);
    await bad.body?.cancel();
    const res = await fetch(target, { method: 'POST', body, headers: { 'content-type': 'application/json', ...signSlackRequest(SECRET, body) } });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const m = await local.waitFor(() => local.messages[0], 'the mounted message');
    assert.equal(m.text, 'via the shared server');
    await p.stop();
    const after = await fetch(target, { method: 'POST', body, headers: { 'content-type': 'application/json', ...signSlackRequest(SECRET, body) } });
    assert.equal(after.status, 503);
    await after.body?.cancel();
  } finally {
    await p.stop();
    await http.close(0);
  }
});

test('Slack\'s Stop over HTTP: the signed agent_session_stopped reaches the bridge once (a retry too); an unsigned one is refused', async () => {
  const agentFake = await FakeSlack.start({ agent: true, users: { U0ANA: 'ana' } });
  const stopBridge = new RecordingBridge();
  const p = createSlackPlatform({
    config: baseConfig({ SLACK_BOT_TOKEN: agentFake.botToken, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: agentFake.apiUrl, SLACK_HTTP_PORT: '0' }),
    logger: silentLogger,
  });
  await p.start(stopBridge);
  try {
    const addr = p.httpAddress()!;
    const here = `http://${addr.host}:${addr.port}/slack/events`;
    agentFake.http = { url: here, secret: SECRET };
    const set = await fetch(`${agentFake.apiUrl}agents.sessions.setStatus`, {
      method: 'POST', headers: { authorization: `Bearer ${agentFake.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel_id: 'C0GEN', thread_ts: '1700000001.000001', status: 'processing' }),
    });
    assert.equal(((await set.json()) as { ok: boolean }).ok, true);

    // An attacker's forged Stop (no signature) is refused before any listener runs.
    const forged = JSON.stringify(agentFake.eventBody({ type: 'agent_session_stopped', channel: 'C0GEN', thread_ts: '1700000001.000001', user: 'U0EVIL', streaming_message_ts: [], event_ts: '1.2' }, 'EvFORGED'));
    const refused = await fetch(here, { method: 'POST', body: forged, headers: { 'content-type': 'application/json' } });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();

    const { eventId } = await agentFake.nativeStop({ channel: 'C0GEN', threadTs: '1700000001.000001', user: 'U0ANA' });
    const stop = await stopBridge.waitFor(() => stopBridge.stops[0], 'the Stop');
    assert.deepEqual({ ...stop, notifyPrivately: undefined }, {
      platform: 'slack', conversation: { space: 'T0FAKE', channel: 'C0GEN', thread: '1700000001.000001' }, user: { id: 'U0ANA', name: 'ana' }, notifyPrivately: undefined,
    });
    // Slack's retry of the same event (X-Slack-Retry-Num) is not a second Stop.
    const again = JSON.stringify(agentFake.eventBody({ type: 'agent_session_stopped', channel: 'C0GEN', thread_ts: '1700000001.000001', user: 'U0ANA', streaming_message_ts: [], event_ts: '1.3' }, eventId));
    const retried = await fetch(here, { method: 'POST', body: again, headers: { 'content-type': 'application/json', ...signSlackRequest(SECRET, again), 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } });
    assert.equal(retried.status, 200);
    await retried.body?.cancel();
    // A later press (a new event) is a Stop again: once it is in, the retry before it is known to have added none.
    await agentFake.nativeStop({ channel: 'C0GEN', threadTs: '1700000001.000001', user: 'U0ANA' });
    await stopBridge.waitFor(() => stopBridge.stops.length >= 2, 'the second press');
    assert.equal(stopBridge.stops.length, 2);
    assert.ok(!stopBridge.stops.some((s) => s.user.id === 'U0EVIL'));
  } finally {
    await p.stop();
    await agentFake.close();
  }
});
