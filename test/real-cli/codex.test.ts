// profiles/codex with the real codex (@openai/codex, pinned in clis.json) against the fake
// OpenAI Responses API on loopback (its WebSocket refused, so codex falls back to HTTPS),
// through loadProfile() + run().
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeOpenAiResponses } from '../fakes/model-apis/index.js';
import { RealCliWorld, skipUnless, answer, thinking } from './real-cli-harness.js';

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
  const { result } = await world.turn({ message: 'say hello' }, { env: { CODEX_API_KEY: '', OPENAI_API_KEY: 'sk-openai-only' } });
  assert.equal(result.error, null, result.error ?? '');
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
  const { result } = await world.turn({ message: 'think first' });
  assert.equal(result.error, null, result.error ?? '');
  assert.equal(answer(result), 'Here it is.');
  assert.equal(thinking(result).trim(), 'Checking what the user wants.');
});

test('codex: the next turn resumes the thread and the model sees the earlier turn', { skip }, async () => {
  const start = world.api.modelCalls.length;
  world.api.script = ({ index }) => ({ text: index === start ? 'The magic word is pineapple.' : 'You asked about the magic word.' });
  const one = await world.turn({ message: 'remember the magic word' });
  assert.equal(one.result.error, null, one.result.error ?? '');
  const two = await world.turn({ message: 'what did I ask?', sessionId: one.result.sessionId });
  assert.equal(two.result.error, null, two.result.error ?? '');
  assert.equal(two.result.sessionId, one.result.sessionId);
  assert.equal(threadIdOf(world.api.modelCalls.at(-1)!.request.body), one.result.sessionId);
  const seen = world.api.modelCalls.at(-1)!.request.raw;
  assert.ok(seen.includes('remember the magic word') && seen.includes('The magic word is pineapple.'), 'the resumed request carries the first turn');
});

test('codex: tools run unattended in its sandbox (as root here) and the model gets the output', { skip }, async () => {
  const start = world.api.modelCalls.length;
  // codex 0.169 exposes its shell through the freeform `exec` (code mode) tool.
  world.api.script = ({ index, toolResults }) => (index === start
    ? { tool: { name: 'exec', input: 'const r = await tools.exec_command({ cmd: "echo unattended > note-codex.txt && echo wrote-it" });\ntext(r.output);' } }
    : { text: `Tool said: ${toolResults.join(' | ')}` });
  const { result } = await world.turn({ message: 'write the note' });
  assert.equal(result.error, null, result.error ?? '');
  assert.equal(readFileSync(join(world.home, 'note-codex.txt'), 'utf8'), 'unattended\n');
  assert.match(answer(result), /Tool said: .*wrote-it/s);
  assert.match(thinking(result), /^Running: echo unattended > note-codex\.txt && echo wrote-it$/m);
});

test('codex: a 503 shows each reconnect as a thinking line, then codex\'s error', { skip }, async () => {
  world.api.script = () => ({ status: 503, message: 'The server is overloaded' });
  const { result } = await world.turn({ message: 'hi' });
  assert.match(result.error ?? '', /503 Service Unavailable/);
  assert.equal(answer(result), '');
  const lines = thinking(result).match(/^Reconnecting to the model \(\d\/5\): unexpected status 503 Service Unavailable: The server is overloaded…$/gm) ?? [];
  assert.equal(lines.length, 5, thinking(result));
});

test('codex: a 401 ends the turn with codex\'s message', { skip }, async () => {
  world.api.script = () => ({ status: 401, message: 'Incorrect API key provided' });
  const { result } = await world.turn({ message: 'hi' });
  assert.match(result.error ?? '', /401 Unauthorized: Incorrect API key provided/);
  assert.equal(answer(result), '');
  assert.match(thinking(result), /^Reconnecting to the model \(1\/5\): unexpected status 401 Unauthorized/m);
});

test('codex: Stop mid-request ends codex and everything it started within the kill grace', { skip }, async () => {
  world.api.script = () => ({ hang: true });
  const calls = world.api.modelCalls.length;
  const ctl = new AbortController();
  const hung = world.api.modelCall((c) => c.index >= calls).then(() => ctl.abort());
  const { result, warnings } = await world.turn({ message: 'take your time' }, { signal: ctl.signal });
  await hung;
  assert.equal(result.cancelled, true);
  assert.deepEqual(warnings.filter((w) => /still running after grace/.test(w)), [], 'no SIGKILL from the runner was needed');
  assert.deepEqual(world.lingering(), []);
});
