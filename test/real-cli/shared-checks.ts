// Scenarios every real CLI goes through the same way (resume, Stop mid-request, a tool call the
// model answers from), asserted once here and called from each CLI's suite.
import assert from 'node:assert/strict';
import type { ModelApiServer, ModelCall, ModelReply } from '../fakes/model-apis/index.js';
import { answer, type RealCliWorld, type TurnRun } from './real-cli-harness.js';

type World = RealCliWorld<ModelApiServer>;

/** A turn that must succeed; its error (with the stderr tail) is the failure message otherwise. */
export async function okTurn(world: World, ...args: Parameters<World['turn']>): Promise<TurnRun> {
  const run = await world.turn(...args);
  assert.equal(run.result.error, null, `${run.result.error}\n${run.stderr.slice(-1500)}`);
  return run;
}

/** The model asks for `tool` once, then answers "Tool said: <the results it got back>". */
export function toolThenAnswer(world: World, tool: ModelReply['tool']): void {
  const start = world.api.modelCalls.length;
  world.api.script = ({ index, toolResults }) => (index === start ? { tool } : { text: `Tool said: ${toolResults.join(' | ')}` });
}

/**
 * The model's next calls answered in order by `steps` (a reply, or a function of the call for
 * one that depends on the request); after them it answers "Tool said: <the tool results>".
 */
export function scriptSteps(world: World, steps: Array<ModelReply | ((call: ModelCall) => ModelReply)>): void {
  const start = world.api.modelCalls.length;
  world.api.script = (call) => {
    const step = steps[call.index - start];
    if (step === undefined) return { text: `Tool said: ${call.toolResults.join(' | ')}` };
    return typeof step === 'function' ? step(call) : step;
  };
}

/** Two turns; the second resumes the first's session id, keeps it, and the API sees the first turn. */
export async function checkResume(world: World): Promise<{ one: TurnRun; two: TurnRun }> {
  const start = world.api.modelCalls.length;
  world.api.script = ({ index }) => ({ text: index === start ? 'The magic word is pineapple.' : 'You asked about the magic word.' });
  const one = await okTurn(world, { message: 'remember the magic word' });
  const two = await okTurn(world, { message: 'what did I ask?', sessionId: one.result.sessionId });
  assert.equal(two.result.sessionId, one.result.sessionId);
  assert.equal(answer(two.result), 'You asked about the magic word.');
  const seen = world.api.modelCalls.at(-1)!.request.raw;
  assert.ok(seen.includes('remember the magic word') && seen.includes('The magic word is pineapple.'), 'the resumed request carries the first turn');
  return { one, two };
}

/**
 * Stop (the runner's abort, as the chat's Stop button) once the CLI is waiting on the model: the
 * turn ends cancelled, the runner never needs its SIGKILL, and no process of the turn is left.
 */
export async function checkStopMidRequest(world: World): Promise<void> {
  world.api.script = () => ({ hang: true });
  const calls = world.api.modelCalls.length;
  const ctl = new AbortController();
  void world.api.modelCall((c) => c.index >= calls).then(() => ctl.abort());
  const run = await world.turn({ message: 'take your time' }, { signal: ctl.signal });
  const { result, warnings } = run;
  stoppedAfterStart(ctl, run, 'the model was called');
  assert.equal(result.cancelled, true);
  assert.deepEqual(warnings.filter((w) => /still running after grace/.test(w)), [], 'no SIGKILL from the runner was needed');
  assert.deepEqual(world.lingering(), []);
}

/**
 * A Stop test's turn that ended before the moment it was to be stopped at (the CLI failed to
 * start, say) fails with its error: waiting on that moment would hang the test.
 */
export function stoppedAfterStart(ctl: AbortController, run: TurnRun, moment: string): void {
  assert.ok(ctl.signal.aborted, `the turn ended before ${moment}, so before Stop: ${run.result.error}\n${run.stderr.slice(-1500)}`);
}

/** The bound on a Stop test: well past the runner's 180 s turn limit, so a failure fails instead of hanging. */
export const STOP_TEST = { timeout: 300_000 };
