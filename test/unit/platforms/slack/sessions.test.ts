/**
 * createSlackSessions with a real WebClient against the fake Slack's agent sessions: the mapping
 * of activities to statuses, titles (and a renamed untitled session), the refresh that keeps a
 * long turn from timing out, top-level conversations left alone, and "not this app" turning
 * sessions off for good with one warning.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webApi } from '@slack/bolt';
import { createSlackSessions, sessionTitle, TITLE_MAX } from '../../../../src/platforms/slack/sessions.js';
import { logCapture } from '../../../fakes/log-capture.js';
import { FakeSlack } from '../../../fakes/slack/index.js';
import { pollUntil } from '../../../e2e/poll-until.js';

const client = (fake: FakeSlack) => new webApi.WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, logLevel: webApi.LogLevel.ERROR });
const conv = (thread: string) => ({ space: 'T0FAKE', channel: 'C1', thread });
const ana = { id: 'U0ANA', name: 'ana' };

test('titles: the first line, whitespace folded, at most TITLE_MAX characters', () => {
  assert.equal(sessionTitle('\n  fix   the\tbuild \nand more'), 'fix the build');
  const long = sessionTitle('x'.repeat(300));
  assert.equal(long.length, TITLE_MAX);
  assert.ok(long.endsWith('…'));
  assert.equal(sessionTitle('   '), '');
});

test('activities map to statuses; the title and initiator come with working; no thread, no session', async () => {
  const fake = await FakeSlack.start({ agent: true });
  const log = logCapture('info');
  const s = createSlackSessions({ client: client(fake), logger: log.logger, rateScale: 1, headroom: 0.9 });
  try {
    assert.equal(s.state.kind, 'unknown');
    await s.show(conv('1.1'), 'working', { text: 'Fix the build\nplease', author: ana });
    assert.equal(s.state.kind, 'on');
    assert.equal(s.statusOf(conv('1.1')), 'processing');
    await s.show(conv('1.1'), 'waiting');
    assert.equal(s.statusOf(conv('1.1')), 'suspended');
    await s.show(conv('1.1'), 'idle');
    assert.equal(s.statusOf(conv('1.1')), undefined, 'active: nothing to carry into a stream stop');
    await s.show(conv('1.1'), 'closed');
    const session = fake.session('C1', '1.1')!;
    assert.deepEqual(session.history, ['processing', 'suspended', 'active', 'closed']);
    assert.equal(session.title, 'Fix the build');
    assert.equal(session.initiator, 'U0ANA');
    await s.show(conv(''), 'working', { text: 'top-level DM', author: ana });
    assert.equal(fake.callsTo('agents.sessions.setStatus').length, 4, 'a conversation without a thread has no session');
    assert.equal(fake.callsTo('agents.sessions.rename').length, 0, 'titled at creation');
  } finally {
    s.close();
    await fake.close();
  }
});

test('a session a stream made first (untitled) is renamed from the turn\'s message', async () => {
  const fake = await FakeSlack.start({ agent: true });
  const s = createSlackSessions({ client: client(fake), logger: logCapture().logger, rateScale: 1, headroom: 0.9 });
  try {
    const c = client(fake);
    await c.chat.startStream({ channel: 'C1', thread_ts: '2.2', markdown_text: 'hi', recipient_user_id: 'U0ANA', recipient_team_id: 'T0FAKE' });
    assert.equal(fake.session('C1', '2.2')!.title, undefined);
    await s.show(conv('2.2'), 'working', { text: 'Summarise the incident', author: ana });
    assert.equal(fake.session('C1', '2.2')!.title, 'Summarise the incident');
  } finally {
    s.close();
    await fake.close();
  }
});

test('a long turn sends processing again before Slack\'s hour runs out; idle stops that', async () => {
  const fake = await FakeSlack.start({ agent: true });
  const s = createSlackSessions({ client: client(fake), logger: logCapture().logger, rateScale: 1, headroom: 0.9, refreshMs: 20 });
  try {
    await s.show(conv('3.3'), 'working', { text: 'long job', author: ana });
    await pollUntil(() => fake.session('C1', '3.3')!.history.length >= 3, 'two refreshes', 10_000);
    assert.deepEqual(fake.session('C1', '3.3')!.history.slice(0, 3), ['processing', 'processing', 'processing']);
    await s.show(conv('3.3'), 'waiting');
    const n = fake.callsTo('agents.sessions.setStatus').length;
    // No refresh while suspended: a later show() is the only next call.
    await s.show(conv('3.3'), 'idle');
    assert.equal(fake.callsTo('agents.sessions.setStatus').length, n + 1);
    assert.equal(fake.session('C1', '3.3')!.status, 'active');
  } finally {
    s.close();
    await fake.close();
  }
});

test('an app not declared an agent: sessions off after the first refusal, one warning, no more calls', async () => {
  const fake = await FakeSlack.start();
  const log = logCapture('info');
  const s = createSlackSessions({ client: client(fake), logger: log.logger, rateScale: 1, headroom: 0.9 });
  try {
    await s.show(conv('4.4'), 'working', { text: 'x', author: ana });
    assert.deepEqual(s.state, { kind: 'off', reason: 'not_authorized' });
    await s.show(conv('4.4'), 'idle');
    await s.show(conv('5.5'), 'working', { text: 'y', author: ana });
    assert.equal(fake.callsTo('agents.sessions.setStatus').length, 1);
    assert.equal(s.statusOf(conv('4.4')), undefined);
    assert.equal(log.lines.filter((l) => l.level === 40).length, 1);
  } finally {
    s.close();
    await fake.close();
  }
});

test('a refusal about one thread (not the app) leaves sessions on', async () => {
  const fake = await FakeSlack.start({ agent: true, channels: { C2: { member: true } } });
  const log = logCapture('info');
  const s = createSlackSessions({ client: client(fake), logger: log.logger, rateScale: 1, headroom: 0.9 });
  try {
    fake.fault('agents.sessions.setStatus', { error: 'channel_not_found' });
    await s.show(conv('6.6'), 'working', { text: 'x', author: ana });
    assert.equal(s.state.kind, 'unknown');
    await s.show(conv('6.6'), 'working', { text: 'x', author: ana });
    assert.equal(s.state.kind, 'on');
    assert.equal(log.lines.filter((l) => l.level === 40).length, 1, 'the refused call is logged');
  } finally {
    s.close();
    await fake.close();
  }
});
