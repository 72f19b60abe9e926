import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { SLACK_BOT_SCOPES } from '../../../../src/platforms/slack/scopes.js';
import { MANIFEST_SCOPES } from '../../../fakes/slack/index.js';

test('the scopes the doctor asks for are exactly the manifest\'s (and the fake grants the same by default)', () => {
  const manifest = parse(readFileSync('slack-app-manifest.yaml', 'utf8')) as { oauth_config: { scopes: { bot: string[] } } };
  const bot = manifest.oauth_config.scopes.bot;
  assert.deepEqual([...bot].sort(), Object.keys(SLACK_BOT_SCOPES).sort());
  assert.deepEqual([...MANIFEST_SCOPES].sort(), [...bot].sort());
});
