// The wrappers' pieces for questions, plans, task lists and gemini's side-request bound, on the
// shapes the real CLIs produced (test/real-cli/claude-conversation.test.ts, codex.test.ts,
// gemini.test.ts run them end to end).
import { test } from 'node:test';
import assert from 'node:assert/strict';
// @ts-expect-error plain .mjs profile modules without types
import { taskLine, createTaskLine, TASK_LINE_MAX } from '../../../profiles/lib/task-line.mjs';
// @ts-expect-error plain .mjs profile modules without types
import { createClaudeTasks } from '../../../profiles/claude-code/claude-tasks.mjs';
// @ts-expect-error plain .mjs profile modules without types
import { answeredQuestions, planRequestInput, createClaudePermissions } from '../../../profiles/claude-code/claude-permission.mjs';
// @ts-expect-error plain .mjs profile modules without types
import { todoItems } from '../../../profiles/codex/codex-events.mjs';
// @ts-expect-error plain .mjs profile modules without types
import { writeTodosItems } from '../../../profiles/gemini-cli/gemini-events.mjs';
// @ts-expect-error plain .mjs profile modules without types
import { createRetryWatch, GEMINI_ATTEMPTS } from '../../../profiles/gemini-cli/gemini-retries.mjs';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

type Item = { text: string; status: string };

test('task line: current item first, then pending, then done; other statuses and empty texts left out', () => {
  const items: Item[] = [
    { text: 'Read the code', status: 'completed' },
    { text: 'Run the tests', status: 'pending' },
    { text: 'Fixing the bug', status: 'in_progress' },
    { text: 'Gone', status: 'deleted' },
    { text: '  ', status: 'pending' },
  ];
  assert.equal(taskLine(items), '◐ Fixing the bug · ☐ Run the tests · ☑ Read the code');
  assert.equal(taskLine([]), '');
  assert.equal(taskLine([{ text: 'x', status: 'cancelled' }]), '');
});

test('task line: never longer than the limit; what does not fit is counted; long items are cut', () => {
  const many: Item[] = Array.from({ length: 12 }, (_, i) => ({ text: `Step number ${i + 1} of the work`, status: i === 0 ? 'in_progress' : 'pending' }));
  const line: string = taskLine(many);
  assert.ok(line.length <= TASK_LINE_MAX, `${line.length}: ${line}`);
  assert.match(line, /^◐ Step number 1 of the work · ☐ Step number 2 of the work · .* · \+\d+$/);
  const shown = line.split(' · ').filter((p) => !p.startsWith('+')).length;
  assert.equal(Number(line.split('+').at(-1)), 12 - shown, 'the count is of the items left out');
  const long = taskLine([{ text: 'A'.repeat(300), status: 'in_progress' }, { text: 'B', status: 'pending' }]);
  assert.ok(long.length <= TASK_LINE_MAX && long.startsWith('◐ AAAA') && long.includes('…'), long);
  for (let max = 20; max <= TASK_LINE_MAX; max++) assert.ok(taskLine(many, max).length <= max, `max ${max}`);
});

test('task line: shown as a thinking line only when it changes', () => {
  const lines: string[] = [];
  const tl = createTaskLine({ line: (l: string) => lines.push(l) });
  tl.show([{ text: 'A', status: 'pending' }]);
  tl.show([{ text: 'A', status: 'pending' }]);
  tl.show([]);
  tl.show([{ text: 'A', status: 'completed' }]);
  assert.deepEqual(lines, ['☐ A', '☑ A']);
});

test('claude tasks: TaskCreate counts once claude answered with the id; updates, deletes, an earlier turn\'s task as #id', () => {
  const t = createClaudeTasks();
  const use = (id: string, name: string, input: object) => assert.equal(t.onToolUse({ type: 'tool_use', id, name, input }), true);
  use('a', 'TaskCreate', { subject: 'Read the code', description: 'r', activeForm: 'Reading the code' });
  assert.deepEqual(t.items(), [], 'not before claude answered');
  // As claude 2.1.332 answers: tool_use_result {task: {id, subject, description}}.
  assert.equal(t.onToolResult('a', false, { task: { id: '1', subject: 'Read the code', description: 'r' } }), true);
  use('b', 'TaskUpdate', { taskId: '1', status: 'in_progress' });
  t.onToolResult('b', false, { success: true, taskId: '1', updatedFields: ['status'] });
  use('c', 'TaskUpdate', { taskId: '7', status: 'completed' });
  t.onToolResult('c', false, { success: true, taskId: '7', updatedFields: ['status'] });
  assert.deepEqual(t.items(), [{ status: 'in_progress', text: 'Reading the code' }, { status: 'completed', text: '#7' }]);
  use('d', 'TaskUpdate', { taskId: '7', status: 'deleted' });
  t.onToolResult('d', false, { success: true, taskId: '7' });
  use('e', 'TaskUpdate', { taskId: '1', status: 'completed' });
  assert.equal(t.onToolResult('e', true, 'Error: no such task'), false, 'a refused call changes nothing');
  assert.deepEqual(t.items(), [{ status: 'in_progress', text: 'Reading the code' }]);
  use('f', 'TaskList', {});
  t.onToolResult('f', false, { tasks: [{ id: '1', subject: 'Read the code', status: 'completed', blockedBy: [] }, { id: '10', subject: 'Ship', status: 'pending', blockedBy: [] }, { id: '2', subject: 'Fix', status: 'pending', blockedBy: [] }] });
  assert.deepEqual(t.items().map((i: Item) => i.text), ['Read the code', 'Fix', 'Ship'], 'ordered by id as numbers');
  assert.equal(t.onToolUse({ type: 'tool_use', id: 'g', name: 'Bash', input: {} }), false, 'other tools keep their tool line');
  assert.equal(t.onToolResult('zzz', false, {}), false);
});

test('claude tasks: TodoWrite replaces the whole list (claude\'s newTodos when it sends them)', () => {
  const t = createClaudeTasks();
  const todos = [{ content: 'Read', activeForm: 'Reading', status: 'completed' }, { content: 'Fix', activeForm: 'Fixing', status: 'in_progress' }];
  t.onToolUse({ type: 'tool_use', id: 'a', name: 'TodoWrite', input: { todos } });
  t.onToolResult('a', false, { oldTodos: [], newTodos: todos });
  assert.deepEqual(t.items(), [{ status: 'completed', text: 'Read' }, { status: 'in_progress', text: 'Fixing' }]);
});

test('question answers: the questions as asked, string answers, a multi-select list joined with ", "; bad values left out with a warning', () => {
  const asked = { questions: [{ question: 'Q1?', header: 'h', options: [], multiSelect: true }] };
  const warnings: string[] = [];
  const out = answeredQuestions(asked, { answers: { 'Q1?': ['A', 'B'], 'Q2?': 'free text', 'Q3?': 42 } }, (w: string) => warnings.push(w));
  assert.deepEqual(out, { questions: asked.questions, answers: { 'Q1?': 'A, B', 'Q2?': 'free text' } });
  assert.equal(warnings.length, 1);
  const echoed = answeredQuestions(asked, { questions: [{ question: 'Q1?' }], answers: { 'Q1?': 'A' }, annotations: { 'Q1?': { notes: 'n' } } });
  assert.deepEqual(echoed, { questions: [{ question: 'Q1?' }], answers: { 'Q1?': 'A' }, annotations: { 'Q1?': { notes: 'n' } } });
});

test('plan input: claude\'s plan when it has one, else the model\'s call, else what it wrote before the call', () => {
  assert.deepEqual(planRequestInput({ plan: 'file plan', planFilePath: '/p.md' }, { called: 'x', said: 'y' }), { plan: 'file plan', planFilePath: '/p.md' });
  assert.deepEqual(planRequestInput({}, { called: ' 1. a ', said: 'y' }), { plan: '1. a' });
  assert.deepEqual(planRequestInput({}, { called: '', said: 'My plan' }), { plan: 'My plan' });
  assert.deepEqual(planRequestInput({}, {}), {});
});

test('claude permissions: the plan shown to the chat is not what claude gets back on a plain Approve', () => {
  const events: Array<Record<string, unknown>> = [];
  const sent: Array<Record<string, any>> = [];
  const p = createClaudePermissions({
    emit: { permissionRequest: (r: Record<string, unknown>) => events.push(r) },
    toClaude: (o: Record<string, any>) => sent.push(o),
    permission: true,
    planHint: () => ({ said: 'The plan in words' }),
  });
  p.request({ type: 'control_request', request_id: 'r1', request: { subtype: 'can_use_tool', tool_name: 'ExitPlanMode', input: {}, tool_use_id: 'toolu_1' } });
  assert.deepEqual(events, [{ request_id: 'r1', tool_name: 'ExitPlanMode', input: { plan: 'The plan in words' }, description: 'Claude\'s plan is ready: approve it to start, or keep planning', tool_use_id: 'toolu_1' }]);
  assert.equal(p.respond({ type: 'permission_response', request_id: 'r1', behavior: 'allow' }), true);
  assert.deepEqual(sent[0]!.response.response, { behavior: 'allow', updatedInput: {} });
  p.request({ type: 'control_request', request_id: 'r2', request: { subtype: 'can_use_tool', tool_name: 'ExitPlanMode', input: {} } });
  p.respond({ type: 'permission_response', request_id: 'r2', behavior: 'deny' });
  assert.deepEqual(sent[1]!.response.response, { behavior: 'deny', message: 'The user did not approve the plan: keep planning.' });
  assert.equal(p.respond({ type: 'permission_response', request_id: 'r2', behavior: 'allow' }), false, 'answered once');
});

test('codex todo_list: the first step not completed is the current one', () => {
  assert.deepEqual(todoItems({ type: 'todo_list', items: [{ text: 'Read', completed: true }, { text: 'Fix', completed: false }, { text: 'Test', completed: false }] }), [
    { text: 'Read', status: 'completed' }, { text: 'Fix', status: 'in_progress' }, { text: 'Test', status: 'pending' },
  ]);
});

test('gemini write_todos: cancelled left out, blocked as pending', () => {
  assert.deepEqual(writeTodosItems({ todos: [{ description: 'A', status: 'in_progress' }, { description: 'B', status: 'blocked' }, { description: 'C', status: 'cancelled' }] }), [
    { text: 'A', status: 'in_progress' }, { text: 'B', status: 'pending' },
  ]);
});

// gemini 0.61's stderr (test/real-cli/gemini.test.ts, every request answered 503), cut down.
const sideRetry = (n: number) => [
  `Attempt ${n} failed with status 503. Retrying with backoff... _ApiError: {"error":{"code":503,"message":"The model is overloaded."}}`,
  '    at throwErrorIfNotOK (file:///x/bundle/chunk-JDPZ4CE3.js:267833:24)',
  '    at async retryWithBackoff (file:///x/bundle/chunk-JDPZ4CE3.js:308039:23)',
  '    at async BaseLlmClient._generateWithRetry (file:///x/bundle/chunk-JDPZ4CE3.js:308334:14)',
  '    at async BaseLlmClient.generateJson (file:///x/bundle/chunk-JDPZ4CE3.js:308227:21)',
  '    at async NumericalClassifierStrategy.route (file:///x/bundle/chunk-JDPZ4CE3.js:360170:28) {',
  '  status: 503',
  '}',
];
const chatRetry = (n: number) => [
  `Attempt ${n} failed with status 503. Retrying with backoff... _ApiError: {"error":{"code":503}}`,
  '    at async GeminiChat.makeApiCallAndProcessStream (file:///x/bundle/chunk-JDPZ4CE3.js:332326:28)',
  '    at async GeminiChat.streamWithRetries (file:///x/bundle/chunk-JDPZ4CE3.js:332079:29)',
  '  status: 503',
];

test('gemini retries: a side request is stopped when it has failed the bound times; the chat request never is', () => {
  let t = 1000;
  const retries: number[] = [];
  const stops: unknown[] = [];
  const watch = createRetryWatch({ onRetry: (a: number) => retries.push(a), onSideBound: (s: unknown) => stops.push(s), now: () => t });
  for (const n of [1, 2, 3, 4]) for (const l of chatRetry(n)) watch.line(l);
  assert.deepEqual(stops, [], 'general.maxAttempts bounds the chat request; gemini itself stops it');
  for (const n of [1, 2]) { for (const l of sideRetry(n)) watch.line(l); t += 6000; }
  assert.deepEqual(stops, []);
  for (const l of sideRetry(3)) watch.line(l);
  assert.deepEqual(stops, [{ attempt: 3, status: 503, caller: 'NumericalClassifierStrategy.route', seconds: 12 }]);
  for (const l of sideRetry(4)) watch.line(l);
  assert.equal(stops.length, 1, 'once');
  assert.deepEqual(retries, [1, 2, 3, 4, 1, 2, 3, 4]);
});

test('gemini retries: the bound is the general.maxAttempts the profile\'s defaults set', () => {
  const defaults = JSON.parse(readFileSync(join(ROOT, 'profiles/gemini-cli/system-defaults.json'), 'utf8'));
  assert.equal(defaults.general.maxAttempts, GEMINI_ATTEMPTS);
});
