/**
 * A route's Slack switches (stream.ts, agent-events.ts): `options.streaming` checked at start-up and applied
 * to the route's conversations only; a DM's suggested prompts from the route a DM takes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTurnbridgeError } from '../../../../src/errors.js';
import { dmSuggestedPrompts } from '../../../../src/platforms/slack/agent-events.js';
import { checkSlackRouteOptions } from '../../../../src/platforms/slack/config.js';
import { anyRouteStreams, streamingFor } from '../../../../src/platforms/slack/stream.js';
import type { RouteConfig } from '../../../../src/config/types.js';

const route = (r: Partial<RouteConfig>): RouteConfig => ({ profile: '/p.yaml', ...r });
const conv = (channel: string, thread = '1.1') => ({ space: 'T1', channel, thread });

test('options.streaming: auto, native or edit; anything else is refused at start-up, naming the field', () => {
  checkSlackRouteOptions({ routes: [route({ channel: 'C1', options: { streaming: 'edit' } }), route({ platform: 'discord', options: { streaming: 'whatever' } })] });
  try {
    checkSlackRouteOptions({ routes: [route({ channel: 'C1' }), route({ platform: 'slack', options: { streaming: 'stream' } })], file: 'tb.yaml' });
    assert.fail('accepted');
  } catch (e) {
    assert.ok(isTurnbridgeError(e, 'TB_CONFIG_INVALID'));
    assert.equal(e.field, 'routes[1].options.streaming');
    assert.match(e.message, /tb\.yaml.*found "stream", expected auto, native or edit/);
  }
  assert.throws(() => checkSlackRouteOptions({ routes: [], dm: route({ options: { streaming: 3 } }) }), /dm\.options\.streaming/);
});

test('a route\'s mode holds in its channels only; the bridge-wide mode elsewhere', () => {
  const routes = { routes: [route({ platform: 'slack', channel: 'C1', options: { streaming: 'edit' } }), route({ platform: 'slack', channel: 'C2', options: { streaming: 'native' } })] };
  assert.equal(streamingFor(routes, 'auto', conv('C1')), 'edit');
  assert.equal(streamingFor(routes, 'edit', conv('C2')), 'native');
  assert.equal(streamingFor(routes, 'auto', conv('C3')), 'auto');
  assert.equal(anyRouteStreams(routes), true, 'C2 streams even when the bridge-wide mode is edit');
  assert.equal(anyRouteStreams({ routes: [routes.routes[0]!] }), false);
});

test('a DM\'s suggested prompts come from dm:, else a route naming only the platform; a channel\'s route never', () => {
  const prompts = [{ title: 'Status', message: 'What is the build status?' }];
  assert.deepEqual(dmSuggestedPrompts({ routes: [], dm: route({ suggestedPrompts: prompts }) }, 'T1', 'D1'), prompts);
  assert.deepEqual(dmSuggestedPrompts({ routes: [route({ platform: 'slack', suggestedPrompts: prompts })] }, 'T1', 'D1'), prompts);
  assert.deepEqual(dmSuggestedPrompts({ routes: [route({ channel: 'C1', suggestedPrompts: prompts })] }, 'T1', 'D1'), []);
});
