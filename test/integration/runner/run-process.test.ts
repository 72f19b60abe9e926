import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../../src/runner/index.js';
import type { PermissionRequest } from '../../../src/protocol/index.js';
import { AGENTS, agentProfile, eventually, isAlive, scripted } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'tb-run-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

test('timeout: SIGTERM, grace, SIGKILL for an agent that ignores SIGTERM; 124; partials kept', async () => {
  const r = await run(agentProfile('ignore-term.mjs'), { message: 'x' }, {}, { timeoutMs: 300, killGraceMs: 200 });
  assert.equal(r.exitCode, 124);
  assert.equal(r.timedOut, true);
  assert.match(r.error ?? '', /did not finish within 0\.3 s/);
  assert.deepEqual(r.partials, [{ text: 'started ' }]);
});

test('timeout kills the whole process group, grandchildren included', async () => {
  const pidFile = join(tmp, 'fork.pid');
  const r = await run(agentProfile('fork-child.mjs', { env: { PID_FILE: pidFile } }), { message: 'x' }, {}, { timeoutMs: 400, killGraceMs: 200 });
  assert.equal(r.exitCode, 124);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  assert.ok(await eventually(() => !isAlive(pid)), `grandchild ${pid} should be dead`);
});

test('an agent that exits while a grandchild holds stdout ends with what it said, not as a timeout', async () => {
  const pidFile = join(tmp, 'hold.pid');
  const r = await run(agentProfile('holds-stdout.mjs', { env: { PID_FILE: pidFile } }), { message: 'x' }, {}, { timeoutMs: 20_000 });
  assert.equal(r.timedOut, false);
  assert.equal(r.exitCode, 0);
  assert.equal(r.reply, 'done');
  assert.equal(r.sessionId, 'held');
  const pid = Number(readFileSync(pidFile, 'utf8'));
  assert.ok(await eventually(() => !isAlive(pid)), 'the stray grandchild is ended');
});

test('timeout beats an earlier error event (124 > 1)', async () => {
  const r = await run(scripted([{ line: { type: 'error', message: 'oops' } }, { sleep: 10_000 }]), { message: 'x' }, {}, { timeoutMs: 300, killGraceMs: 200 });
  assert.equal(r.exitCode, 124);
  assert.equal(r.timedOut, true);
});

test('an AbortSignal cancels like a timeout; cancelled, partials kept', async () => {
  const ac = new AbortController();
  const r = await run(agentProfile('ignore-term.mjs'), { message: 'x' }, { onPartial: () => ac.abort() }, { signal: ac.signal, killGraceMs: 200 });
  assert.equal(r.cancelled, true);
  assert.equal(r.timedOut, false);
  assert.equal(r.exitCode, 130);
  assert.deepEqual(r.partials, [{ text: 'started ' }]);
});

test('the first cause wins: a Stop whose agent outlives its deadline in the grace is stopped, not timed out', async () => {
  const ac = new AbortController();
  // Stopped once it said something (its SIGTERM handler is in place then): it ignores SIGTERM,
  // so its deadline passes during the grace.
  const r = await run(agentProfile('ignore-term.mjs'), { message: 'x' }, { onPartial: () => ac.abort() }, { signal: ac.signal, timeoutMs: 1500, killGraceMs: 2500 });
  assert.equal(r.cancelled, true);
  assert.equal(r.timedOut, false);
  assert.equal(r.exitCode, 130);
});

test('a 64 MiB single line is discarded as it streams, with a notice; the turn continues', async () => {
  const r = await run(agentProfile('big-line.mjs', { env: { BIG_MB: '64' } }), { message: 'x' });
  assert.equal(r.exitCode, 0);
  assert.equal(r.reply, 'after the big line');
  assert.equal(r.notices.length, 1);
  assert.match(r.notices[0]!, /oversized event from the agent \(64\.0 MiB\) was dropped/);
});

test('permission round trip: request -> handler -> permission_response on stdin', async () => {
  const seen: PermissionRequest[] = [];
  const profile = scripted([
    { line: { type: 'permission_request', request_id: 'r1', tool_name: 'Bash', input: { command: 'date' }, description: 'print the date', tool_use_id: 't1' } },
    { read: true },
    { line: { type: 'permission_request', request_id: 'r2', tool_name: 'Write', input: { path: 'a' } } },
    { read: true },
    { line: { type: 'permission_request', request_id: 'r3', tool_name: 'Edit', input: {} } },
    { read: true },
    { line: { type: 'result', text: '' } },
  ], { permission: true });
  const r = await run(profile, { message: 'x' }, {
    onPermissionRequest: async (req) => {
      seen.push(req);
      if (req.requestId === 'r1') return { behavior: 'allow' };
      if (req.requestId === 'r2') return { behavior: 'deny', message: 'not today' };
      return { behavior: 'allow', updatedInput: { path: 'b' } };
    },
  });
  assert.equal(r.exitCode, 0);
  assert.deepEqual(seen[0], { requestId: 'r1', toolName: 'Bash', input: { command: 'date' }, description: 'print the date', toolUseId: 't1' });
  const responses = r.partials.map((p) => JSON.parse(p.text));
  assert.deepEqual(responses, [
    { type: 'permission_response', request_id: 'r1', behavior: 'allow' },
    { type: 'permission_response', request_id: 'r2', behavior: 'deny', message: 'not today' },
    { type: 'permission_response', request_id: 'r3', behavior: 'allow', updated_input: { path: 'b' } },
  ]);
});

test('permission true writes permission:true in the turn and keeps stdin open', async () => {
  const r = await run(scripted([{ echoTurn: true }], { permission: true }), { message: 'x' });
  assert.equal(JSON.parse(r.reply).permission, true);
});

test('a malformed permission request with a request_id is denied; one without is ignored', async () => {
  let called = false;
  const r = await run(scripted([
    { line: { type: 'permission_request', tool_name: 'Bash', input: {} } },
    { line: { type: 'permission_request', request_id: 'm1', input: 'nope' } },
    { read: true },
    { line: { type: 'result', text: '' } },
  ], { permission: true }), { message: 'x' }, { onPermissionRequest: async () => { called = true; return { behavior: 'allow' }; } });
  assert.equal(called, false);
  const resp = JSON.parse(r.partials[0]!.text);
  assert.equal(resp.request_id, 'm1');
  assert.equal(resp.behavior, 'deny');
  assert.match(resp.message, /tool_name missing/);
});

test('with permission false a request is ignored and never blocks', async () => {
  let called = false;
  const r = await run(scripted([
    { line: { type: 'permission_request', request_id: 'p', tool_name: 'Bash', input: {} } },
    { read: true },
    { line: { type: 'result', text: 'went on' } },
  ]), { message: 'x' }, { onPermissionRequest: async () => { called = true; return { behavior: 'allow' }; } });
  assert.equal(called, false);
  assert.deepEqual(r.partials, [{ text: '<eof>' }]);
});

test('timeout with a pending permission request answers deny with a timeout message before the kill', async () => {
  let aborted = false;
  const r = await run(scripted([
    { ignoreTerm: true },
    { line: { type: 'permission_request', request_id: 'slow', tool_name: 'Bash', input: {} } },
    { read: true },
    { sleep: 10_000 },
  ], { permission: true }), { message: 'x' }, {
    onPermissionRequest: (_req, { signal }) => new Promise(() => { signal.addEventListener('abort', () => { aborted = true; }); }),
  }, { timeoutMs: 400, killGraceMs: 300 });
  assert.equal(r.exitCode, 124);
  assert.equal(aborted, true, 'the handler is told the request ended');
  const resp = JSON.parse(r.partials[0]!.text);
  assert.deepEqual(resp, { type: 'permission_response', request_id: 'slow', behavior: 'deny', message: 'The turn timed out waiting for approval.' });
});

test('EPIPE: an agent that exits without reading a large turn never crashes the bridge', async () => {
  const profile = agentProfile('scripted.mjs', { args: ['-e', 'process.exit(5)'] });
  const r = await run(profile, { message: 'x'.repeat(4 * 1024 * 1024) });
  assert.equal(r.exitCode, 5);
  assert.match(r.error ?? '', /exited with code 5/);
  const p = await run({ ...profile, permission: true }, { message: 'y'.repeat(1024 * 1024) });
  assert.equal(p.exitCode, 5);
});

test('command not found names the command and the profile file (127)', async () => {
  const r = await run({ ...agentProfile('x'), command: '/nonexistent/agent bin', args: [], file: '/etc/p.yaml' }, { message: 'x' });
  assert.equal(r.exitCode, 127);
  assert.match(r.error ?? '', /command not found: "\/nonexistent\/agent bin" \(profile \/etc\/p\.yaml\)/);
});

test('a command that is not executable is reported (126)', async () => {
  const f = join(tmp, 'not-exec.sh');
  writeFileSync(f, '#!/bin/sh\necho hi\n');
  chmodSync(f, 0o644);
  const r = await run({ ...agentProfile('x'), command: f, args: [] }, { message: 'x' });
  assert.equal(r.exitCode, 126);
  assert.match(r.error ?? '', /not executable/);
});

test('a command path with spaces is one argv token', async () => {
  const dir = join(tmp, 'dir with spaces');
  mkdirSync(dir, { recursive: true });
  const agent = join(dir, 'my agent.mjs');
  copyFileSync(join(AGENTS, 'scripted.mjs'), agent);
  chmodSync(agent, 0o755);
  const r = await run({ ...agentProfile('x'), command: agent, args: [], env: { AGENT_STEPS: JSON.stringify([{ line: { type: 'result', text: 'spaced' } }]) } }, { message: 'x' });
  assert.equal(r.reply, 'spaced');
});

test('a missing cwd is a clear error before spawning', async () => {
  let spawned = false;
  const r = await run(scripted([], { cwd: '/definitely/not/here', file: '/p/profile.yaml' }), { message: 'x' }, { onSpawn: () => { spawned = true; } });
  assert.equal(spawned, false);
  assert.match(r.error ?? '', /\/p\/profile\.yaml: field "cwd": directory \/definitely\/not\/here does not exist/);
});
