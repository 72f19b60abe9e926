import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { holds } from '../../../src/runner/index.js';

test('holds: a directory holds itself and what lies below it, a child named "..foo" included; never its parent or a sibling', () => {
  assert.equal(holds('/srv/bridge', '/srv/bridge'), true);
  assert.equal(holds('/srv/bridge', '/srv/bridge/data/x.sqlite'), true);
  assert.equal(holds('/srv/bridge', '/srv/bridge/..env-backup'), true);
  assert.equal(holds('/srv/bridge', '/srv'), false);
  assert.equal(holds('/srv/bridge', '/srv/bridge-2'), false);
  assert.equal(holds('/srv/bridge', '/srv/bridge/../other'), false);
});
