import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { SLACK_AGENT_SCOPE, SLACK_BOT_EVENTS, SLACK_BOT_SCOPES } from '../../../../src/platforms/slack/scopes.js';
import { MANIFEST_EVENTS, MANIFEST_SCOPES } from '../../../fakes/slack/index.js';

const manifest = parse(readFileSync('slack-app-manifest.yaml', 'utf8')) as {
  oauth_config: { scopes: { bot: string[] } };
  features: { agent_view?: { agent_description?: string } };
  settings: { event_subscriptions: { bot_events: string[] } };
};

test('the scopes the doctor asks for are exactly the manifest\'s (and the fake grants the same by default)', () => {
  const bot = manifest.oauth_config.scopes.bot;
  assert.deepEqual([...bot].sort(), [...Object.keys(SLACK_BOT_SCOPES), SLACK_AGENT_SCOPE].sort());
  assert.deepEqual([...MANIFEST_SCOPES].sort(), [...bot].sort());
});

test('the manifest declares the app an agent and subscribes to the events the bridge handles (the fake the same)', () => {
  assert.ok(manifest.features.agent_view?.agent_description, 'features.agent_view with a description');
  assert.ok(manifest.features.agent_view!.agent_description!.length <= 300, 'Slack\'s schema: at most 300 characters');
  const events = manifest.settings.event_subscriptions.bot_events;
  assert.deepEqual([...events].sort(), Object.keys(SLACK_BOT_EVENTS).sort());
  assert.deepEqual([...MANIFEST_EVENTS].sort(), [...events].sort());
});
