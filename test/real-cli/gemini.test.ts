// profiles/gemini-cli with the real gemini (@google/gemini-cli, pinned in clis.json) against
// the fake Gemini API on loopback (GOOGLE_GEMINI_BASE_URL), through loadProfile() + run().
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeGemini } from '../fakes/model-apis/index.js';
import { RealCliWorld, skipUnless, answer, thinking, taskLines, filesContaining } from './real-cli-harness.js';
import { okTurn, toolThenAnswer, checkResume, checkStopMidRequest, scriptSteps, stoppedAfterStart, STOP_TEST } from './shared-checks.js';

const skip = skipUnless('gemini');
let world: RealCliWorld<FakeGemini>;
before(async () => { if (!skip) world = await new RealCliWorld('gemini', new FakeGemini()).start(); });
after(async () => { await world?.close(); });

test('gemini: hello through a base URL streams the answer; the key goes to the fake; nothing leaves loopback', { skip }, async () => {
  world.api.script = () => ({ text: 'Hello from the fake Gemini API.' });
  const { result } = await okTurn(world, { message: 'say hello' });
  assert.equal(answer(result), 'Hello from the fake Gemini API.');
  assert.ok(result.partials.filter((p) => p.role !== 'thinking').length > 1, 'more than one delta');
  const call = await world.api.modelCall();
  assert.equal(call.request.headers['x-goog-api-key'], 'test-gemini-key');
  assert.match(call.request.path, /^\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent/);
  assert.match(result.sessionId, /^[0-9a-f-]{36}$/);
  assert.ok(filesContaining(join(world.home, '.gemini'), result.sessionId).some((f) => f.includes('/chats/')), "gemini's own chat record carries the session id");
  assert.equal(result.usage?.output_tokens, 6);
  assert.deepEqual(world.api.side.calls, [], 'a fixed GEMINI_MODEL skips the model router\'s side request');
  assert.deepEqual(world.trap.attempts, []);
});

test('gemini: thought parts stay out of the answer (0.61 stream-json has no thought events)', { skip }, async () => {
  world.api.script = () => ({ thinking: 'Internal reasoning that must not leak.', text: 'Just the answer.' });
  const { result } = await okTurn(world, { message: 'think first' });
  assert.equal(answer(result), 'Just the answer.');
  assert.doesNotMatch(thinking(result), /Internal reasoning/);
});

test('gemini: the next turn resumes the session (the id is gemini\'s own) and the model sees the earlier turn', { skip }, async () => {
  await checkResume(world);
});

test('gemini: tools run unattended (--yolo, as root here) and the model gets the output', { skip }, async () => {
  toolThenAnswer(world, { name: 'run_shell_command', input: { command: 'echo unattended > note-gemini.txt && echo wrote-it', description: 'Write a note' } });
  const { result } = await okTurn(world, { message: 'write the note' });
  assert.equal(readFileSync(join(world.home, 'note-gemini.txt'), 'utf8'), 'unattended\n');
  assert.match(answer(result), /Tool said: .*wrote-it/s);
  assert.match(thinking(result), /^Running shell: echo unattended > note-gemini\.txt && echo wrote-it$/m);
});

test('gemini: write_todos is one live task line, current item first (cancelled ones left out); usage on the result', { skip }, async () => {
  const todos = (list: Array<[string, string]>) => ({ tool: { name: 'write_todos', input: { todos: list.map(([description, status]) => ({ description, status })) } } });
  scriptSteps(world, [
    todos([['Read the code', 'in_progress'], ['Fix the bug', 'pending'], ['Write a poem', 'pending']]),
    todos([['Read the code', 'completed'], ['Fix the bug', 'in_progress'], ['Write a poem', 'cancelled']]),
    { text: 'All done.' },
  ]);
  const { result } = await okTurn(world, { message: 'fix the bug' });
  assert.deepEqual(taskLines(result), [
    '◐ Read the code · ☐ Fix the bug · ☐ Write a poem',
    '◐ Fix the bug · ☑ Read the code',
  ]);
  assert.equal(answer(result), 'All done.');
  assert.equal(result.usage?.input_tokens, 90);
  assert.equal(result.usage?.output_tokens, 18);
});

test('gemini: a 503 shows each retry as a thinking line, 3 attempts, then gemini\'s error', { skip }, async (t) => {
  const calls = world.api.modelCalls.length;
  world.api.script = () => ({ status: 503, message: 'The model is overloaded. Please try again later.' });
  const { result } = await world.turn({ message: 'hi' });
  t.diagnostic(`error after ${result.durationMs} ms: ${result.error}`);
  assert.match(result.error ?? '', /The model is overloaded/);
  assert.equal(answer(result), '');
  assert.deepEqual(thinking(result).match(/^API error 503 \(attempt \d\), retrying…$/gm), ['API error 503 (attempt 1), retrying…', 'API error 503 (attempt 2), retrying…']);
  assert.equal(world.api.modelCalls.length - calls, 3, 'general.maxAttempts 3 from the profile\'s system-defaults.json');
});

test('gemini: on an overloaded API the model router\'s side request is held to 3 attempts too; the error says why (issue 23)', { skip }, async (t) => {
  const calls = world.api.modelCalls.length;
  const sideCalls = world.api.side.calls.length;
  const overloaded = 'The model is overloaded. Please try again later.';
  world.api.script = () => ({ status: 503, message: overloaded });
  Object.assign(world.api.side, { status: 503, message: overloaded });
  try {
    // No GEMINI_MODEL: model "auto", whose router asks a classifier first (a :generateContent side request).
    const { result, warnings } = await world.turn({ message: 'hi' }, { env: { GEMINI_MODEL: '' } });
    t.diagnostic(`error after ${result.durationMs} ms: ${result.error}`);
    assert.match(result.error ?? '', /^gemini's model-routing request \(model "auto"\) failed 3 times in \d+ s \(API error 503\)\. gemini would retry it up to 5 times, about a minute more, whatever general\.maxAttempts says, so the wrapper stopped it\. Try again later, or set GEMINI_MODEL to a fixed model \(it skips the routing request\)\.$/);
    // gemini 0.61 alone: 5 side attempts (~70 s), then 3 for the chat request.
    assert.equal(world.api.side.calls.length - sideCalls, 3, 'three side attempts, not five');
    assert.equal(world.api.modelCalls.length, calls, 'stopped before the chat request');
    assert.deepEqual(thinking(result).match(/^API error 503 \(attempt \d\), retrying…$/gm), ['API error 503 (attempt 1), retrying…', 'API error 503 (attempt 2), retrying…', 'API error 503 (attempt 3), retrying…']);
    assert.equal(answer(result), '');
    assert.deepEqual(warnings.filter((w) => /still running after grace/.test(w)), []);
    assert.deepEqual(world.lingering(), []);
  } finally {
    Object.assign(world.api.side, { status: undefined, message: undefined });
  }
});

test('gemini: a 401 ends the turn with gemini\'s message, without retries', { skip }, async (t) => {
  const calls = world.api.modelCalls.length;
  world.api.script = () => ({ status: 401, message: 'API key not valid. Please pass a valid API key.' });
  const { result } = await world.turn({ message: 'hi' });
  t.diagnostic(`error after ${result.durationMs} ms: ${result.error}`);
  assert.match(result.error ?? '', /API key not valid/);
  assert.equal(answer(result), '');
  assert.equal(world.api.modelCalls.length - calls, 1);
});

test('gemini: Stop mid-request reaches the real CLI behind the launcher; nothing is left within the kill grace', { skip, ...STOP_TEST }, async () => {
  await checkStopMidRequest(world);
});

test('gemini: SIGTERM to the wrapper alone (no group kill from the bridge) still ends gemini\'s real CLI', { skip, ...STOP_TEST }, async () => {
  world.api.script = () => ({ hang: true });
  const calls = world.api.modelCalls.length;
  let wrapperPid = 0;
  // The gemini binary is a launcher that ignores SIGTERM and runs the real CLI as its child:
  // only the wrapper's own group kill reaches that child.
  const ctl = new AbortController();
  void world.api.modelCall((c) => c.index >= calls).then(() => { ctl.abort(); process.kill(wrapperPid, 'SIGTERM'); });
  // Unboxed: the test signals the wrapper's own pid, which in the box is bwrap's (the box is a
  // process group of its own, ended as a whole by the bridge's Stop above).
  const run = await world.turn({ message: 'take your time' }, { handlers: { onSpawn: (pid) => { wrapperPid = pid; } }, box: false });
  const { result } = run;
  stoppedAfterStart(ctl, run, 'the model was called');
  assert.equal(result.error, 'gemini was stopped (SIGTERM)');
  assert.deepEqual(world.lingering(), []);
});
