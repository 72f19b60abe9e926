// profiles/codex with the real codex (@openai/codex, pinned in clis.json) against the fake
// OpenAI Responses API on loopback (its WebSocket refused, so codex falls back to HTTPS),
// through loadProfile() + run().
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeOpenAiResponses } from '../fakes/model-apis/index.js';
import { RealCliWorld, skipUnless, answer, thinking, taskLines } from './real-cli-harness.js';
import { okTurn, toolThenAnswer, checkResume, checkStopMidRequest, scriptSteps, STOP_TEST } from './shared-checks.js';

const skip = skipUnless('codex');
let world: RealCliWorld<FakeOpenAiResponses>;
before(async () => { if (!skip) world = await new RealCliWorld('codex', new FakeOpenAiResponses()).start(); });
after(async () => { await world?.close(); });

/** codex's own thread id, as it tells the model API. */
function threadIdOf(body: { client_metadata?: { thread_id?: string } }): string | undefined {
  return body.client_metadata?.thread_id;
}

test('codex: hello with OPENAI_API_KEY only (sent as CODEX_API_KEY); the session id is codex\'s own thread', { skip }, async () => {
  world.api.script = () => ({ text: 'Hello from the fake Responses API.' });
  const { result } = await okTurn(world, { message: 'say hello' }, { env: { CODEX_API_KEY: '', OPENAI_API_KEY: 'sk-openai-only' } });
  assert.equal(answer(result), 'Hello from the fake Responses API.');
  assert.deepEqual(result.partials.filter((p) => p.role !== 'thinking').map((p) => p.text), ['Hello from the fake Responses API.'], 'codex exec sends the message whole');
  const call = await world.api.modelCall();
  assert.equal(call.request.headers.authorization, 'Bearer sk-openai-only');
  assert.equal(result.sessionId, threadIdOf(call.request.body));
  assert.ok(world.api.upgrades.length > 0, 'codex tried the WebSocket first and fell back to HTTPS');
  assert.equal(result.usage?.input_tokens, 40);
  assert.deepEqual(world.trap.attempts, []);
});

test('codex: reasoning becomes a thinking line apart from the answer', { skip }, async () => {
  world.api.script = () => ({ thinking: 'Checking what the user wants.', text: 'Here it is.' });
  const { result } = await okTurn(world, { message: 'think first' });
  assert.equal(answer(result), 'Here it is.');
  assert.equal(thinking(result).trim(), 'Checking what the user wants.');
});

test('codex: the next turn resumes the thread and the model sees the earlier turn', { skip }, async () => {
  const { one } = await checkResume(world);
  assert.equal(threadIdOf(world.api.modelCalls.at(-1)!.request.body), one.result.sessionId);
});

test('codex: tools run unattended in its sandbox (as root here) and the model gets the output', { skip }, async () => {
  // codex 0.169 exposes its shell through the freeform `exec` (code mode) tool.
  toolThenAnswer(world, { name: 'exec', input: 'const r = await tools.exec_command({ cmd: "echo unattended > note-codex.txt && echo wrote-it" });\ntext(r.output);' });
  const { result } = await okTurn(world, { message: 'write the note' });
  assert.equal(readFileSync(join(world.home, 'note-codex.txt'), 'utf8'), 'unattended\n');
  assert.match(answer(result), /Tool said: .*wrote-it/s);
  assert.match(thinking(result), /^Running: echo unattended > note-codex\.txt && echo wrote-it$/m);
});

test('codex: its plan (update_plan, on by the wrapper) is one live task line, current step first; usage on the result', { skip }, async () => {
  // codex 0.169 exposes update_plan to the model through its freeform `exec` (code mode) tool.
  const plan = (steps: Array<[string, string]>) => ({ tool: { name: 'exec', input: `await tools.update_plan({ plan: ${JSON.stringify(steps.map(([step, status]) => ({ step, status })))} });\ntext("planned");` } });
  scriptSteps(world, [
    plan([['Read the code', 'completed'], ['Fix the bug', 'in_progress'], ['Run the tests', 'pending']]),
    plan([['Read the code', 'completed'], ['Fix the bug', 'completed'], ['Run the tests', 'in_progress']]),
    { text: 'All done.' },
  ]);
  const { result } = await okTurn(world, { message: 'fix the bug' });
  assert.deepEqual(taskLines(result), [
    '◐ Fix the bug · ☐ Run the tests · ☑ Read the code',
    '◐ Run the tests · ☑ Read the code · ☑ Fix the bug',
  ]);
  assert.equal(answer(result), 'All done.');
  assert.deepEqual(result.usage, { input_tokens: 120, output_tokens: 27, total_tokens: 147, cache_read_input_tokens: 24, reasoning_tokens: 9 });
});

test('codex: a 503 shows each reconnect as a thinking line, then codex\'s error', { skip }, async (t) => {
  world.api.script = () => ({ status: 503, message: 'The server is overloaded' });
  const { result } = await world.turn({ message: 'hi' });
  t.diagnostic(`error after ${result.durationMs} ms: ${result.error}`);
  assert.match(result.error ?? '', /503 Service Unavailable/);
  assert.equal(answer(result), '');
  const lines = thinking(result).match(/^Reconnecting to the model \(\d\/5\): unexpected status 503 Service Unavailable: The server is overloaded…$/gm) ?? [];
  assert.equal(lines.length, 5, thinking(result));
});

test('codex: a 401 ends the turn with codex\'s message', { skip }, async (t) => {
  world.api.script = () => ({ status: 401, message: 'Incorrect API key provided' });
  const { result } = await world.turn({ message: 'hi' });
  t.diagnostic(`error after ${result.durationMs} ms: ${result.error}`);
  assert.match(result.error ?? '', /401 Unauthorized: Incorrect API key provided/);
  assert.equal(answer(result), '');
  assert.match(thinking(result), /^Reconnecting to the model \(1\/5\): unexpected status 401 Unauthorized/m);
});

test('codex: Stop mid-request ends codex and everything it started within the kill grace', { skip, ...STOP_TEST }, async () => {
  await checkStopMidRequest(world);
});
