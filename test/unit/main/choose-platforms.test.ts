import type { BridgeConfig } from '../../../src/config/types.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { choosePlatforms } from '../../../src/main.js';
import { openSecurity } from '../../fixtures/config-defaults.js';

const config = (platforms: Record<string, Record<string, unknown>> = {}): BridgeConfig => ({
  ...openSecurity(), defaultProfile: '/p.yaml', routes: [], approvers: [], queueDepth: 5, maxConcurrent: 4, permissionTimeoutSecs: 600,
  dataDir: '/tmp/d', host: '127.0.0.1', port: 0, shutdownGraceSecs: 1, logLevel: 'silent', platforms,
});

test('no tokens: only the local page', () => {
  assert.deepEqual(choosePlatforms({}, config()), { slack: false, discord: false, local: true });
  assert.deepEqual(choosePlatforms({ SLACK_BOT_TOKEN: '  ', DISCORD_TOKEN: '' }, config()), { slack: false, discord: false, local: true });
});

test('tokens start their platforms and turn the local page off unless asked for', () => {
  assert.deepEqual(choosePlatforms({ SLACK_BOT_TOKEN: 'xoxb-1' }, config()), { slack: true, discord: false, local: false });
  assert.deepEqual(choosePlatforms({ DISCORD_TOKEN: 'x.y.z' }, config()), { slack: false, discord: true, local: false });
  assert.deepEqual(choosePlatforms({ SLACK_BOT_TOKEN: 'xoxb-1', DISCORD_TOKEN: 'x.y.z' }, config()), { slack: true, discord: true, local: false });
  assert.deepEqual(choosePlatforms({ DISCORD_TOKEN: 'x.y.z', TURNBRIDGE_LOCAL: '1' }, config()), { slack: false, discord: true, local: true });
  assert.deepEqual(choosePlatforms({ DISCORD_TOKEN: 'x.y.z', TURNBRIDGE_LOCAL: 'true' }, config()), { slack: false, discord: true, local: true });
  assert.deepEqual(choosePlatforms({ DISCORD_TOKEN: 'x.y.z', TURNBRIDGE_LOCAL: '0' }, config()), { slack: false, discord: true, local: false });
  assert.deepEqual(choosePlatforms({ SLACK_BOT_TOKEN: 'xoxb-1' }, config({ local: { enabled: true } })), { slack: true, discord: false, local: true });
});
