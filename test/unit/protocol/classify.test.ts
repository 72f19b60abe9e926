import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { classifyLine, sessionIdProblem, buildTurn, permissionResponseLine } from '../../../src/protocol/index.js';

test('event classification per wire 0.4', () => {
  assert.deepEqual(classifyLine('{"type":"partial","text":"a","role":"thinking","session_id":"s"}').event, { type: 'partial', text: 'a', role: 'thinking', sessionId: 's' });
  assert.deepEqual(classifyLine('{"type":"partial","text":null,"role":1}').event, { type: 'partial', text: '' });
  assert.deepEqual(classifyLine('{"type":"result","text":"r","usage":{"input_tokens":1}}').event, { type: 'result', text: 'r', usage: { input_tokens: 1 } });
  assert.deepEqual(classifyLine('{"type":"result","usage":5}').event, { type: 'result', text: '' });
  assert.deepEqual(classifyLine('{"type":"error"}').event, { type: 'error', message: '' });
  for (const bad of ['x', '1', '[]', 'null', '"s"', '{}', '{"type":"text","text":"a"}', '{"type":"session","id":"a"}', '{"type":5}']) {
    assert.equal(classifyLine(bad).event.type, 'malformed', bad);
  }
});

test('usage on a partial is ignored with a warning', () => {
  const c = classifyLine('{"type":"partial","text":"a","usage":{"x":1}}');
  assert.deepEqual(c.event, { type: 'partial', text: 'a' });
  assert.equal(c.warnings.length, 1);
});

test('session_id rules: non-empty string without / \\ or control characters', () => {
  assert.equal(sessionIdProblem('org:proj:thread-42'), null);
  assert.equal(sessionIdProblem('with space'), null);
  for (const bad of ['', 'a/b', 'a\\b', 'a\nb', 'nul\u0000', 'del\u007f', 5, null, {}]) assert.notEqual(sessionIdProblem(bad), null, JSON.stringify(bad));
  const c = classifyLine('{"type":"result","text":"","session_id":"a/b"}');
  assert.equal('sessionId' in c.event, false);
  assert.equal(c.droppedSessionId?.reason, 'contains a path separator');
});

test('permission_request: valid, malformed with an id, malformed without', () => {
  assert.deepEqual(classifyLine('{"type":"permission_request","request_id":"1","tool_name":"Bash","input":{"command":"ls"},"description":"d","tool_use_id":"t"}').event, {
    type: 'permission_request', request: { requestId: '1', toolName: 'Bash', input: { command: 'ls' }, description: 'd', toolUseId: 't' },
  });
  const m = classifyLine('{"type":"permission_request","request_id":"2","tool_name":"Bash","input":[]}').event;
  assert.equal(m.type, 'bad_permission_request');
  assert.equal(m.type === 'bad_permission_request' && m.requestId, '2');
  const n = classifyLine('{"type":"permission_request","tool_name":"Bash","input":{}}').event;
  assert.equal(n.type === 'bad_permission_request' && n.requestId, undefined);
});

test('classifyLine never throws, whatever the line', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => { classifyLine(s); }), { numRuns: 2000 });
  fc.assert(fc.property(fc.jsonValue(), (v) => { classifyLine(JSON.stringify(v)); }), { numRuns: 2000 });
});

test('turn object and permission_response lines', () => {
  assert.deepEqual(buildTurn({ message: 'm', permission: false }), { type: 'turn', message: 'm', session_id: '', session_name: 'default', attachments: [], permission: false, protocol_version: '0.4' });
  assert.equal(permissionResponseLine('1', { behavior: 'allow' }), '{"type":"permission_response","request_id":"1","behavior":"allow"}\n');
  assert.equal(permissionResponseLine('1', { behavior: 'deny', message: 'no' }), '{"type":"permission_response","request_id":"1","behavior":"deny","message":"no"}\n');
  assert.equal(permissionResponseLine('1', { behavior: 'deny', updatedInput: { a: 1 } }), '{"type":"permission_response","request_id":"1","behavior":"deny"}\n');
});
