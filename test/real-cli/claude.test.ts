// profiles/claude-code with the real claude (@anthropic-ai/claude-code, pinned in clis.json)
// against the fake Anthropic Messages API on loopback, through loadProfile() + run().
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeAnthropic } from '../fakes/model-apis/index.js';
import type { PermissionDecision, PermissionRequest } from '../../src/protocol/types.js';
import { RealCliWorld, skipUnless, answer, thinking, fileAppears, alive, SANDBOX, AGENT_IS_ROOT } from './real-cli-harness.js';
import { okTurn, toolThenAnswer, checkResume, checkStopMidRequest, stoppedAfterStart, STOP_TEST } from './shared-checks.js';

const skip = skipUnless('claude');
let world: RealCliWorld<FakeAnthropic>;
before(async () => { if (!skip) world = await new RealCliWorld('claude', new FakeAnthropic()).start(); });
after(async () => { await world?.close(); });
const unattended = { profile: { permission: false }, env: { IS_SANDBOX: '1' } };

test('claude: hello streams token by token; the session id is claude\'s own; nothing leaves loopback', { skip }, async () => {
  world.api.script = () => ({ text: 'Hello from the fake Anthropic API.' });
  const { result } = await okTurn(world, { message: 'say hello' });
  assert.equal(answer(result), 'Hello from the fake Anthropic API.');
  assert.ok(result.partials.filter((p) => p.role !== 'thinking').length > 1, 'more than one text delta');
  const call = await world.api.modelCall();
  assert.equal(call.request.headers['x-api-key'], 'sk-ant-test-key');
  assert.equal(result.sessionId, call.request.headers['x-claude-code-session-id']);
  assert.match(result.sessionId, /^[0-9a-f-]{36}$/);
  assert.equal(result.usage?.input_tokens, 12);
  assert.deepEqual(world.trap.attempts, []);
});

test('claude: thinking streams apart from the answer', { skip }, async () => {
  world.api.script = () => ({ thinking: 'The user wants a greeting; keep it short.', text: 'Hi there.' });
  const { result } = await okTurn(world, { message: 'greet me' });
  assert.equal(answer(result), 'Hi there.');
  assert.equal(thinking(result).trim(), 'The user wants a greeting; keep it short.');
});

test('claude: the next turn resumes the session and the model sees the earlier turn', { skip }, async () => {
  await checkResume(world);
});

/** A turn whose model asks for Bash once, answered by `decide` when claude asks permission. */
async function bashTurn(command: string, decide: (req: PermissionRequest) => PermissionDecision) {
  toolThenAnswer(world, { name: 'Bash', input: { command, description: 'Write a note' } });
  const requests: PermissionRequest[] = [];
  const run = await okTurn(world, { message: 'write the note' }, {
    handlers: { onPermissionRequest: async (req) => { requests.push(req); return decide(req); } },
  });
  return { ...run, requests, toolResults: world.api.modelCalls.at(-1)!.toolResults };
}

test('claude: a tool call asks for permission; Allow runs it and the model gets the output', { skip }, async () => {
  const { result, requests } = await bashTurn('echo allowed > note-allow.txt && echo wrote-it', () => ({ behavior: 'allow' }));
  assert.equal(requests.length, 1);
  assert.equal(requests[0]!.toolName, 'Bash');
  assert.deepEqual(requests[0]!.input, { command: 'echo allowed > note-allow.txt && echo wrote-it', description: 'Write a note' });
  assert.equal(requests[0]!.description, 'Write a note', "claude's own description of the call");
  assert.equal(readFileSync(join(world.home, 'note-allow.txt'), 'utf8'), 'allowed\n');
  assert.match(answer(result), /Tool said: .*wrote-it/);
  assert.match(thinking(result), /Running Bash: echo allowed/);
});

test('claude: Deny keeps the tool from running and the model gets the reason', { skip }, async () => {
  const { toolResults } = await bashTurn('echo denied > note-deny.txt', () => ({ behavior: 'deny', message: 'Not in this repository, please.' }));
  assert.equal(existsSync(join(world.home, 'note-deny.txt')), false);
  assert.ok(toolResults.some((t) => t.includes('Not in this repository, please.')), JSON.stringify(toolResults));
});

test('claude: Allow with edited input runs the edited command', { skip }, async () => {
  await bashTurn('echo original > note-edit.txt', () => ({ behavior: 'allow', updatedInput: { command: 'echo edited > note-edit.txt', description: 'Write a note' } }));
  assert.equal(readFileSync(join(world.home, 'note-edit.txt'), 'utf8'), 'edited\n');
});


test('claude: permission false runs tools unattended, as root with IS_SANDBOX=1', { skip }, async () => {
  toolThenAnswer(world, { name: 'Bash', input: { command: 'echo unattended > note-auto.txt && echo wrote-it', description: 'Write a note' } });
  const { result } = await okTurn(world, { message: 'write the note' }, unattended);
  assert.equal(readFileSync(join(world.home, 'note-auto.txt'), 'utf8'), 'unattended\n');
  assert.match(answer(result), /Tool said: .*wrote-it/);
});

test('claude: as root without IS_SANDBOX, permission false fails with a hint that names IS_SANDBOX', { skip: skip || (!AGENT_IS_ROOT && 'claude does not run as root here') }, async () => {
  const calls = world.api.modelCalls.length;
  const { result } = await world.turn({ message: 'hi' }, { profile: { permission: false } });
  assert.match(result.error ?? '', /root\/sudo.*IS_SANDBOX=1/s);
  assert.equal(world.api.modelCalls.length, calls, 'claude refused before calling the model');
});

test('claude: a 529 shows each retry as a thinking line, bounded, then claude\'s own error (not as answer)', { skip }, async (t) => {
  const calls = world.api.modelCalls.length;
  world.api.script = () => ({ status: 529, message: 'Overloaded' });
  const { result } = await world.turn({ message: 'hi' });
  t.diagnostic(`error after ${result.durationMs} ms: ${result.error}`);
  assert.match(result.error ?? '', /529/);
  assert.equal(answer(result), '', 'the synthetic error message is not streamed as the answer');
  const retries = thinking(result).match(/^API error 529 \(overloaded\), retrying \(\d\/4\)…$/gm) ?? [];
  assert.equal(retries[0], 'API error 529 (overloaded), retrying (1/4)…');
  // CLAUDE_CODE_MAX_RETRIES=4 by default; claude 2.1.332 may give up earlier on its own ("Repeated 529 Overloaded errors").
  assert.equal(world.api.modelCalls.length - calls, retries.length + 1, 'one thinking line per retry');
  assert.ok(retries.length <= 4, `bounded: ${retries.length} retries`);
});

test('claude: a 401 ends the turn with claude\'s own message after the bounded retries', { skip }, async (t) => {
  world.api.script = () => ({ status: 401, message: 'invalid x-api-key' });
  const { result } = await world.turn({ message: 'hi' }, { env: { CLAUDE_CODE_MAX_RETRIES: '1' } });
  t.diagnostic(`error after ${result.durationMs} ms: ${result.error}`);
  assert.equal(result.error, 'Invalid API key · Fix external API key');
  assert.equal(answer(result), '');
  assert.match(thinking(result), /API error 401 \(authentication failed\), retrying \(1\/1\)…/);
});

test('claude: Stop mid-request ends claude and everything it started within the kill grace', { skip, ...STOP_TEST }, async () => {
  await checkStopMidRequest(world);
});

test('claude: Stop while a tool runs ends the command claude started too', { skip, ...STOP_TEST }, async () => {
  // The shell writes its pid, then becomes `sleep` (exec): that pid must be gone after Stop.
  toolThenAnswer(world, { name: 'Bash', input: { command: 'echo $$ > tool-pid.txt; exec sleep 600', description: 'Wait' } });
  const ctl = new AbortController();
  const started = fileAppears(world.home, 'tool-pid.txt').then((t) => { ctl.abort(); return Number(t.trim()); });
  const run = await world.turn({ message: 'wait a while' }, { ...unattended, signal: ctl.signal });
  const { result, warnings } = run;
  stoppedAfterStart(ctl, run, 'the tool wrote its pid');
  const pid = await started;
  assert.equal(result.cancelled, true);
  assert.ok(pid > 0);
  // In the box the pid the shell wrote is its PID namespace's, not the host's: lingering() below
  // (every process with this world's HOME) is the check there.
  if (SANDBOX === 'off') assert.equal(alive(pid), false, `the tool's sleep (pid ${pid}) is gone`);
  assert.deepEqual(warnings.filter((w) => /still running after grace/.test(w)), []);
  assert.deepEqual(world.lingering(), []);
});
