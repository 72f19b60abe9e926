// Questions, plans and the task list with the real claude (pinned in clis.json) against the fake
// Anthropic API: the fake's tool_use makes claude ask, the test answers as the bridge would, and
// what claude sent back to the model (the tool_result the fake sees) is asserted (issue 26).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeAnthropic, type ModelCall } from '../fakes/model-apis/index.js';
import type { PermissionDecision, PermissionRequest } from '../../src/protocol/types.js';
import { RealCliWorld, skipUnless, answer, thinking, taskLines } from './real-cli-harness.js';
import { okTurn, scriptSteps } from './shared-checks.js';
import { COLOR, FEATURES } from '../fixtures/card-agents/questions.mjs';

const skip = skipUnless('claude');
let world: RealCliWorld<FakeAnthropic>;
before(async () => { if (!skip) world = await new RealCliWorld('claude', new FakeAnthropic()).start(); });
after(async () => { await world?.close(); });


/** A turn whose model asks `questions` once; `decide` answers as the bridge would. */
async function askTurn(questions: object[], decide: (req: PermissionRequest) => PermissionDecision, opts: Parameters<typeof world.turn>[1] = {}) {
  scriptSteps(world, [{ text: 'One question first.', tool: { name: 'AskUserQuestion', input: { questions } } }]);
  const requests: PermissionRequest[] = [];
  const run = await okTurn(world, { message: 'style the button' }, {
    ...opts,
    handlers: { onPermissionRequest: async (req) => { requests.push(req); return decide(req); } },
  });
  return { ...run, requests, toolResults: world.api.modelCalls.at(-1)!.toolResults };
}

/** The bridge's answer to a question card: the questions as asked, answers keyed by question text. */
const answers = (req: PermissionRequest, given: Record<string, string | string[]>): PermissionDecision =>
  ({ behavior: 'allow', updatedInput: { questions: req.input.questions, answers: given } });

test('claude question: arrives as a permission request with the questions as asked; the chosen label reaches the model', { skip }, async () => {
  const { result, requests, toolResults } = await askTurn([COLOR], (req) => answers(req, { [COLOR.question]: 'Blue' }));
  assert.equal(requests.length, 1);
  const req = requests[0]!;
  assert.equal(req.toolName, 'AskUserQuestion');
  assert.deepEqual(req.input, { questions: [COLOR] });
  assert.equal(req.description, 'Claude asks: Which color should the button be?');
  assert.match(req.toolUseId ?? '', /^toolu_fake_\d+$/);
  assert.deepEqual(toolResults, ['Your questions have been answered: "Which color should the button be?"="Blue". You can now continue with these answers in mind.']);
  assert.match(thinking(result), /^Asking: Which color should the button be\?$/m);
  assert.match(answer(result), /Tool said: Your questions have been answered/);
});

test('claude question: a multi-select (labels as a list, joined by the wrapper) and a second question in one call', { skip }, async () => {
  const { requests, toolResults } = await askTurn([FEATURES, COLOR], (req) => answers(req, { [FEATURES.question]: ['Search', 'Dark mode'], [COLOR.question]: 'Green' }));
  assert.deepEqual(requests[0]!.input, { questions: [FEATURES, COLOR] });
  assert.equal(requests[0]!.description, 'Claude asks: Which features do you want? (+1 more)');
  assert.deepEqual(toolResults, ['Your questions have been answered: "Which features do you want?"="Search, Dark mode", "Which color should the button be?"="Green". You can now continue with these answers in mind.']);
});

test('claude question: "Other" free text is the answer\'s value (claude tells the model to read it carefully)', { skip }, async () => {
  const { toolResults } = await askTurn([COLOR], (req) => answers(req, { [COLOR.question]: 'Teal, like the sea' }));
  assert.deepEqual(toolResults, ['The user answered: "Which color should the button be?"="Teal, like the sea". Read the answers carefully — they may request clarification, changes, or that you not proceed — and follow what they actually say.']);
});

test('claude question: a skipped question (deny) gives the model the message, or says it was not answered', { skip }, async () => {
  const withMessage = await askTurn([COLOR], () => ({ behavior: 'deny', message: 'Pick whatever matches the logo.' }));
  assert.deepEqual(withMessage.toolResults, ['Pick whatever matches the logo.']);
  const without = await askTurn([COLOR], () => ({ behavior: 'deny' }));
  assert.deepEqual(without.toolResults, ['The user did not answer the question.']);
});

test('claude question: unattended (permission false) AskUserQuestion stays off: nobody is asked', { skip }, async () => {
  const { requests, toolResults } = await askTurn([COLOR], () => { throw new Error('no request expected'); }, { profile: { permission: false }, env: { IS_SANDBOX: '1' } });
  assert.deepEqual(requests, []);
  assert.equal(toolResults.length, 1);
  assert.match(toolResults[0]!, /No such tool available: AskUserQuestion/);
});

/** The plan file claude tells the model to write (plan mode's system reminder). */
function planPath(call: ModelCall): string {
  const m = /create your plan at (\S+?\.md)/.exec(call.request.raw);
  assert.ok(m, 'plan mode names the plan file in the request');
  return m[1]!;
}
const PLAN = '# Plan\n\n1. Read the code\n2. Fix the bug\n3. Run the tests\n';

/** A plan-mode turn (profiles/claude-code-plan) whose model writes its plan file, then asks to leave plan mode. */
async function planTurn(decide: (req: PermissionRequest) => PermissionDecision, after: Array<Parameters<typeof scriptSteps>[1][number]> = []) {
  let file = '';
  scriptSteps(world, [
    (call) => { file = planPath(call); return { text: 'Writing the plan.', tool: { name: 'Write', input: { file_path: file, content: PLAN } } }; },
    { text: 'The plan is ready.', tool: { name: 'ExitPlanMode', input: {} } },
    ...after,
  ]);
  const requests: PermissionRequest[] = [];
  const calls = world.api.modelCalls.length;
  const run = await okTurn(world, { message: 'fix the bug' }, {
    variant: 'claude-code-plan',
    handlers: { onPermissionRequest: async (req) => { requests.push(req); return decide(req); } },
  });
  return { ...run, requests, file, results: world.api.modelCalls.slice(calls).map((c) => c.toolResults) };
}

test('claude plan: the plan file\'s text is in the request; Approve lets claude leave plan mode and start', { skip }, async () => {
  const { requests, file, results } = await planTurn(
    () => ({ behavior: 'allow' }),
    [{ text: 'Starting.', tool: { name: 'Bash', input: { command: 'echo started > started.txt', description: 'Start' } } }],
  );
  assert.deepEqual(requests.map((r) => r.toolName), ['ExitPlanMode', 'Bash'], 'the plan file was written without asking; after approval tools ask as usual');
  const plan = requests[0]!;
  assert.deepEqual(plan.input, { plan: PLAN, planFilePath: file });
  assert.equal(plan.description, 'Claude\'s plan is ready: approve it to start, or keep planning');
  assert.match(results[2]![0]!, /^User has approved your plan\. You can now start coding\./);
  assert.ok(results[2]![0]!.includes(`## Approved Plan:\n${PLAN}`), results[2]![0]);
  assert.equal(readFileSync(join(world.home, 'started.txt'), 'utf8'), 'started\n');
});

test('claude plan: Keep planning (deny with feedback) gives the model the feedback; claude stays in plan mode', { skip }, async () => {
  const { requests, results } = await planTurn(
    (req) => (req.toolName === 'ExitPlanMode' ? { behavior: 'deny', message: 'Add a step that updates the docs.' } : { behavior: 'allow' }),
    [{ text: 'Trying anyway.', tool: { name: 'Bash', input: { command: 'echo early > early.txt', description: 'Too early' } } }],
  );
  assert.deepEqual(results[2], ['Add a step that updates the docs.']);
  // Still in plan mode: claude 2.1.332 refuses the command itself (no request reaches the chat).
  assert.deepEqual(requests.map((r) => r.toolName), ['ExitPlanMode']);
  assert.equal(existsSync(join(world.home, 'early.txt')), false);
  assert.match(results[3]![0]!, /Bash was not run/);
});

test('claude plan: without a plan file the plan comes from the model\'s call, else from what it wrote before the call', { skip }, async () => {
  const decideAndKeep = (seen: PermissionRequest[]) => async (req: PermissionRequest): Promise<PermissionDecision> => { seen.push(req); return { behavior: 'allow' }; };
  const fromCall: PermissionRequest[] = [];
  scriptSteps(world, [{ text: 'Done planning.', tool: { name: 'ExitPlanMode', input: { plan: '1. Read\n2. Fix' } } }]);
  await okTurn(world, { message: 'fix it' }, { variant: 'claude-code-plan', handlers: { onPermissionRequest: decideAndKeep(fromCall) } });
  // claude 2.1.332 drops the model's plan argument when no plan file exists (input {}).
  assert.deepEqual(fromCall[0]!.input, { plan: '1. Read\n2. Fix' });

  const fromText: PermissionRequest[] = [];
  scriptSteps(world, [{ text: 'My plan:\n1. Read the code\n2. Fix the bug', tool: { name: 'ExitPlanMode', input: {} } }]);
  const calls = world.api.modelCalls.length;
  await okTurn(world, { message: 'fix it' }, { variant: 'claude-code-plan', handlers: { onPermissionRequest: decideAndKeep(fromText) } });
  assert.deepEqual(fromText[0]!.input, { plan: 'My plan:\n1. Read the code\n2. Fix the bug' });
  assert.deepEqual(world.api.modelCalls[calls + 1]!.toolResults, ['User has approved exiting plan mode. You can now proceed.'], 'Approve without updated_input: claude gets its own input back');
});

test('claude tasks: TaskCreate / TaskUpdate become one live task line, current task first, never in the answer', { skip }, async () => {
  const create = (subject: string, activeForm: string) => ({ tool: { name: 'TaskCreate', input: { subject, description: subject, activeForm } } });
  const update = (taskId: string, status: string) => ({ tool: { name: 'TaskUpdate', input: { taskId, status } } });
  scriptSteps(world, [create('Read the code', 'Reading the code'), create('Fix the bug', 'Fixing the bug'), update('1', 'in_progress'),
    update('1', 'completed'), update('2', 'in_progress'), { text: 'Fixed.' }]);
  const { result } = await okTurn(world, { message: 'fix the bug' }, { env: { CLAUDE_CODE_ENABLE_TODO_TOOLS: '1' } });
  assert.deepEqual(taskLines(result), [
    '☐ Read the code',
    '☐ Read the code · ☐ Fix the bug',
    '◐ Reading the code · ☐ Fix the bug',
    '☐ Fix the bug · ☑ Read the code',
    '◐ Fixing the bug · ☑ Read the code',
  ]);
  assert.equal(answer(result), 'Fixed.');
  assert.doesNotMatch(thinking(result), /Using Task/);
});

test('claude tasks: TodoWrite (CLAUDE_CODE_ENABLE_TASKS=0) shows the whole list each call', { skip }, async () => {
  const todos = (statuses: string[]) => ({ tool: { name: 'TodoWrite', input: { todos: [
    { content: 'Read the code', activeForm: 'Reading the code', status: statuses[0] },
    { content: 'Fix the bug', activeForm: 'Fixing the bug', status: statuses[1] },
  ] } } });
  scriptSteps(world, [todos(['in_progress', 'pending']), todos(['completed', 'in_progress']), { text: 'Done.' }]);
  const { result } = await okTurn(world, { message: 'fix the bug' }, { env: { CLAUDE_CODE_ENABLE_TODO_TOOLS: '1', CLAUDE_CODE_ENABLE_TASKS: '0' } });
  assert.deepEqual(taskLines(result), ['◐ Reading the code · ☐ Fix the bug', '◐ Fixing the bug · ☑ Read the code']);
  assert.equal(answer(result), 'Done.');
});

test('claude usage: tokens in and out and claude\'s cost estimate on the result', { skip }, async () => {
  scriptSteps(world, [{ text: 'Hi.' }]);
  const { result } = await okTurn(world, { message: 'hi' });
  assert.equal(result.usage?.input_tokens, 12);
  assert.equal(result.usage?.output_tokens, 7);
  assert.equal(result.usage?.total_tokens, 19);
  assert.ok(typeof result.usage?.cost_usd === 'number' && result.usage.cost_usd > 0, JSON.stringify(result.usage));
});
