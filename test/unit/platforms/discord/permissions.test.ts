import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DISCORD_PERMISSION_BITS, inviteUrl, missingPermissions } from '../../../../src/platforms/discord/permissions.js';
import { messageContentGranted } from '../../../../src/platforms/discord/message-content.js';

test('invite URL: exactly the permissions docs/discord.md lists', () => {
  assert.equal(DISCORD_PERMISSION_BITS, 309237746752n);
  assert.equal(inviteUrl('123'), 'https://discord.com/oauth2/authorize?client_id=123&scope=bot&permissions=309237746752');
  assert.ok(readFileSync('docs/discord.md', 'utf8').includes('permissions=309237746752'));
});

test('missing permissions by name; Administrator covers all; junk is all missing', () => {
  assert.deepEqual(missingPermissions(String(DISCORD_PERMISSION_BITS)), []);
  assert.deepEqual(missingPermissions('8'), []);
  assert.deepEqual(missingPermissions(String(DISCORD_PERMISSION_BITS & ~(1n << 6n))), ['Add Reactions']);
  assert.equal(missingPermissions('nope').length, 7);
});

test('Message Content is granted by either application flag', () => {
  assert.equal(messageContentGranted(1 << 18), true);
  assert.equal(messageContentGranted(1 << 19), true);
  assert.equal(messageContentGranted((1 << 12) | (1 << 14)), false);
  assert.equal(messageContentGranted(0), false);
});
