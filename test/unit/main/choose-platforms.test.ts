import { test } from 'node:test';
import assert from 'node:assert/strict';
import { choosePlatforms } from '../../../src/main.js';
import { loadConfig } from '../../../src/config/index.js';
import { parseLocalConfig } from '../../../src/platforms/local/index.js';

const SLACK = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' };
/** The platforms of the configuration read from `env` (and a `local:` section). */
function chosen(env: NodeJS.ProcessEnv, local?: Record<string, unknown>) {
  const { platforms } = loadConfig({ env, cwd: '/' });
  return choosePlatforms({ platforms: local ? { ...platforms, local: parseLocalConfig(local) } : platforms });
}

test('no tokens: only the local page', () => {
  assert.deepEqual(chosen({}), { slack: false, discord: false, local: true });
  assert.deepEqual(chosen({ SLACK_BOT_TOKEN: '  ', DISCORD_TOKEN: '' }), { slack: false, discord: false, local: true });
});

test('tokens start their platforms and turn the local page off unless asked for', () => {
  assert.deepEqual(chosen(SLACK), { slack: true, discord: false, local: false });
  assert.deepEqual(chosen({ DISCORD_TOKEN: 'x.y.z' }), { slack: false, discord: true, local: false });
  assert.deepEqual(chosen({ ...SLACK, DISCORD_TOKEN: 'x.y.z' }), { slack: true, discord: true, local: false });
  assert.deepEqual(chosen({ DISCORD_TOKEN: 'x.y.z', TURNBRIDGE_LOCAL: '1' }), { slack: false, discord: true, local: true });
  assert.deepEqual(chosen({ DISCORD_TOKEN: 'x.y.z', TURNBRIDGE_LOCAL: 'true' }), { slack: false, discord: true, local: true });
  assert.deepEqual(chosen({ DISCORD_TOKEN: 'x.y.z', TURNBRIDGE_LOCAL: '0' }), { slack: false, discord: true, local: false });
  assert.deepEqual(chosen(SLACK, { enabled: true }), { slack: true, discord: false, local: true });
});
