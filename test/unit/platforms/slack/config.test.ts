import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSlackConfig } from '../../../../src/platforms/slack/config.js';
import { isTurnbridgeError } from '../../../../src/errors.js';

const BOT = 'xoxb-1-2-abcdef';
const APP = 'xapp-1-A1-123-abc';

function rejects(fn: () => unknown, field: RegExp, message: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(isTurnbridgeError(e, 'TB_CONFIG_INVALID'), String(e));
    assert.match(String((e as { field?: string }).field), field);
    assert.match((e as Error).message, message);
    return true;
  });
}

test('Socket Mode by default; defaults are sane; the API URL gets its trailing slash', () => {
  const c = parseSlackConfig({ SLACK_BOT_TOKEN: BOT, SLACK_APP_TOKEN: APP, SLACK_API_URL: 'http://127.0.0.1:9/api' });
  assert.equal(c.mode, 'socket');
  assert.equal(c.apiUrl, 'http://127.0.0.1:9/api/');
  assert.equal(c.streaming, 'auto');
  assert.equal(c.reactions, true);
  assert.equal(c.allowBots, false);
  assert.equal(c.maxAttachmentBytes, 20 * 1024 * 1024);
  assert.equal(c.maxAttachments, 10);
  assert.equal(c.rateScale, 1);
  assert.equal(parseSlackConfig({ SLACK_BOT_TOKEN: BOT, SLACK_APP_TOKEN: APP }).apiUrl, 'https://slack.com/api/');
});

test('HTTP mode when a signing secret is given without an app token', () => {
  const c = parseSlackConfig({ SLACK_BOT_TOKEN: BOT, SLACK_SIGNING_SECRET: 's', SLACK_HTTP_PORT: '3100' });
  assert.equal(c.mode, 'http');
  assert.equal(c.httpPort, 3100);
  assert.equal(parseSlackConfig({ SLACK_BOT_TOKEN: BOT, SLACK_APP_TOKEN: APP, SLACK_SIGNING_SECRET: 's' }).mode, 'socket');
});

test('token mistakes name the variable and what to do, without echoing the token', () => {
  rejects(() => parseSlackConfig({ SLACK_APP_TOKEN: APP }), /SLACK_BOT_TOKEN/, /OAuth & Permissions/);
  assert.throws(() => parseSlackConfig({ SLACK_BOT_TOKEN: 'xoxp-user-token-secret', SLACK_APP_TOKEN: APP }), (e: unknown) => {
    assert.match((e as Error).message, /SLACK_BOT_TOKEN[\s\S]*xoxb-/);
    assert.ok(!(e as Error).message.includes('xoxp-user-token-secret'));
    return true;
  });
  rejects(() => parseSlackConfig({ SLACK_BOT_TOKEN: BOT, SLACK_APP_TOKEN: 'xoxb-wrong' }), /SLACK_APP_TOKEN/, /connections:write/);
  rejects(() => parseSlackConfig({ SLACK_BOT_TOKEN: BOT }), /SLACK_APP_TOKEN/, /SLACK_SIGNING_SECRET/);
});

test('other environment mistakes', () => {
  const env = { SLACK_BOT_TOKEN: BOT, SLACK_APP_TOKEN: APP };
  rejects(() => parseSlackConfig({ ...env, SLACK_STREAMING: 'stream' }), /SLACK_STREAMING/, /auto, native or edit/);
  for (const mode of ['auto', 'native', 'edit', ' EDIT ']) {
    assert.equal(parseSlackConfig({ ...env, SLACK_STREAMING: mode }).streaming, mode.trim().toLowerCase());
  }
  // the environment wins over the slack: section; the section is checked too
  assert.equal(parseSlackConfig({ ...env, SLACK_STREAMING: 'native' }, { streaming: 'edit' }).streaming, 'native');
  assert.equal(parseSlackConfig(env, { streaming: 'edit' }).streaming, 'edit');
  rejects(() => parseSlackConfig(env, { streaming: 'fast' }, 'tb.yaml'), /slack\.streaming/, /auto, native or edit/);
  rejects(() => parseSlackConfig({ ...env, SLACK_API_URL: 'ftp://x' }), /SLACK_API_URL/, /http/);
  rejects(() => parseSlackConfig({ ...env, SLACK_HTTP_PORT: 'eighty' }), /SLACK_HTTP_PORT/, /port/);
});

test('the slack: section accepts snake_case and camelCase keys and names bad fields with the file', () => {
  const env = { SLACK_BOT_TOKEN: BOT, SLACK_APP_TOKEN: APP };
  const c = parseSlackConfig(env, { reactions: false, allowBots: true, max_attachment_bytes: 1024, keepAttachments: true });
  assert.deepEqual([c.reactions, c.allowBots, c.maxAttachmentBytes, c.keepAttachments], [false, true, 1024, true]);
  rejects(() => parseSlackConfig(env, { reaktions: false }, 'turnbridge.yaml'), /slack\.reaktions/, /^turnbridge\.yaml: field "slack\.reaktions"/);
  rejects(() => parseSlackConfig(env, { reactions: 'no' }), /slack\.reactions/, /true or false/);
  rejects(() => parseSlackConfig(env, { max_attachments: -1 }), /slack\.max_attachments/, />= 0/);
});

test('Bolt log lines are scrubbed of tokens', async () => {
  const { scrubSecrets } = await import('../../../../src/platforms/slack/platform.js');
  assert.equal(scrubSecrets('auth xoxb-123-456-abcDEF and xapp-1-A1-2-ff {"token":"verif123","x":1}'), 'auth xoxb-[redacted] and xapp-[redacted] {"token":"[redacted]","x":1}');
});
