/** The terminal's log line: the turn's context said once, fields as key=value, errors by their message. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactLine } from '../../../src/log-line.js';

const turn = { turn: '0123456789abcdef', platform: 'slack', conversation: 'slack:T1:C1:1.2', profile: '/x/profiles/demo/profile.yaml', user: 'U1' };

test('turn start names the conversation, the profile and the user; later lines of the turn do not', () => {
  assert.equal(compactLine({ level: 30, time: 1, msg: 'turn start', ...turn, queueWaitMs: 3 }), '[01234567] turn start slack:T1:C1:1.2 demo U1 queueWaitMs=3');
  assert.equal(compactLine({ level: 40, time: 1, msg: 'turn end', ...turn, outcome: 'error', error: 'boom: it "broke"' }), '[01234567] turn end outcome=error error="boom: it \\"broke\\""');
});

test('outside a turn the fields stay (the profile by its name); an err shows its message', () => {
  assert.equal(compactLine({ msg: 'profile loaded', profile: '/x/profiles/echo/profile.yaml', command: 'node' }), 'profile loaded profile=echo command=node');
  assert.equal(compactLine({ msg: 'platform stop failed', platform: 'slack', err: { type: 'Error', message: 'socket gone', stack: 'Error: …' } }), 'platform stop failed platform=slack err="socket gone"');
});

test('a permission decision in a turn: tagged, the decider as platform:id, nothing its message says twice', () => {
  const line = { level: 30, msg: 'permission allow (once) Bash', ...turn, component: 'audit', audit: 'permission_decision', tool: 'Bash', decider: { platform: 'slack', id: 'U2', name: 'ana' }, decision: 'allow', source: 'once', latencyMs: 70 };
  assert.equal(compactLine(line), '[01234567] permission allow (once) Bash decider=slack:U2 latencyMs=70');
  assert.equal(compactLine({ msg: 'permission requested', ...turn, tool: 'Bash' }), '[01234567] permission requested tool=Bash', 'tool stays where the message does not say it');
});

test('a conversation key prints without its empty trailing part (no thread)', () => {
  assert.equal(compactLine({ msg: 'turn start', ...turn, conversation: 'local:local:tab1:' }), '[01234567] turn start local:local:tab1 demo U1');
  assert.equal(compactLine({ msg: 'session reset', conversation: 'discord::D1:', user: 'U1' }), 'session reset conversation=discord::D1 user=U1');
});
