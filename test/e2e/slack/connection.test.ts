/**
 * Connecting: Slack down at start then up, bad tokens reported (not thrown), a dropped socket
 * reconnected, and no token ever in a log line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/log.js';
import { BOT_USER, FakeSlack, visibleText } from '../../fakes/slack/index.js';
import { RecordingBridge, makePlatform, until } from './harness.js';
import { makeTurnRig } from './turn-rig.js';

function captureLogs(): { logger: ReturnType<typeof createLogger>; text: () => string } {
  const lines: string[] = [];
  const destination = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
  return { logger: createLogger({ level: 'trace', destination }), text: () => lines.join('') };
}

test('Slack down at start: start() resolves, status degraded with a hint; when Slack is up a mention gets its reply', async () => {
  const logs = captureLogs();
  const fake = await FakeSlack.start();
  fake.setDown(true);
  const bridge = new RecordingBridge();
  const platform = makePlatform(fake, { reconnect_base_ms: 100, reconnect_max_ms: 100 }, {}, logs.logger);
  try {
    await platform.start(bridge);
    const s = platform.status();
    assert.equal(s.state, 'degraded');
    assert.match((s as { reason: string }).reason, /cannot reach Slack at http:\/\/127\.0\.0\.1:\d+\/api\//);
    assert.match((s as { hint?: string }).hint ?? '', /SLACK_API_URL/);
    fake.setDown(false);
    await platform.whenReady();
    await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> hi` });
    const m = await bridge.waitFor(() => bridge.messages[0], 'the first message');
    assert.equal(m.text, 'hi');
    assert.match(logs.text(), /slack not connected/);
    assert.match(logs.text(), /slack connected/);
  } finally {
    await platform.stop();
    await fake.close();
  }
  assert.ok(!logs.text().includes(fake.botToken) && !logs.text().includes(fake.appToken), 'no token in the logs');
});

test('with the real bridge and agent: Slack down at start, then up, then gone and back; mentions are answered', async () => {
  const rig = await makeTurnRig({ downAtStart: true, slack: { reconnect_base_ms: 100, reconnect_max_ms: 100 } });
  try {
    assert.equal(rig.platform.status().state, 'degraded');
    rig.fake.setDown(false);
    await rig.platform.whenReady();
    const first = await rig.fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> echo one` });
    assert.equal(visibleText((await rig.finalReply('C0GEN', first.ts, first.ts))[0]), 'echo: echo one');
    // cut Slack off: the socket drops, reconnects fail while it is down, then succeed
    rig.fake.setDown(true);
    const s = await until(() => { const st = rig.platform.status(); return st.state === 'degraded' && st; }, 'degraded status');
    assert.match(s.reason, /reconnecting|cannot reach Slack/);
    rig.fake.setDown(false);
    await rig.platform.whenReady();
    const second = await rig.fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> echo two` });
    assert.equal(visibleText((await rig.finalReply('C0GEN', second.ts, second.ts))[0]), 'echo: echo two');
  } finally {
    await rig.close();
  }
});

test('a bad bot token or app token is reported in status(), never thrown, and retried', async () => {
  const fake = await FakeSlack.start();
  const logs = captureLogs();
  const badBot = makePlatform(fake, { reconnect_base_ms: 50, reconnect_max_ms: 50 }, { SLACK_BOT_TOKEN: 'xoxb-not-the-right-one' }, logs.logger);
  const badApp = makePlatform(fake, { reconnect_base_ms: 50, reconnect_max_ms: 50 }, { SLACK_APP_TOKEN: 'xapp-not-the-right-one' }, logs.logger);
  try {
    await badBot.start(new RecordingBridge());
    await badApp.start(new RecordingBridge());
    const a = badBot.status() as { state: string; reason: string; hint: string };
    assert.equal(a.state, 'degraded');
    assert.match(a.reason, /Slack rejected SLACK_BOT_TOKEN \(invalid_auth\)/);
    assert.match(a.hint, /Bot User OAuth Token/);
    const b = badApp.status() as { state: string; reason: string; hint: string };
    assert.equal(b.state, 'degraded');
    assert.match(b.reason, /Slack rejected SLACK_APP_TOKEN \(invalid_auth\)/);
    assert.match(b.hint, /connections:write/);
    await fake.waitFor(() => fake.callsTo('auth.test').filter((c) => c.auth === 'other').length >= 3, 'auth.test retried');
  } finally {
    await badBot.stop();
    await badApp.stop();
    await fake.close();
  }
  assert.equal(badBot.status().state, 'stopped');
  assert.ok(!logs.text().includes('xoxb-not-the-right-one') && !logs.text().includes('xapp-not-the-right-one'), 'no token in the logs');
});
