// Questions and plans with the real claude (pinned in clis.json) on the terminal: `turnbridge
// chat` (the installed command, input piped as a person types it) with the shipped claude-code
// and claude-code-plan profiles against the fake Anthropic API. A number typed and "o" with typed
// text answer a question, "k" and feedback send a plan back, "a" approves one; what claude then
// sent the model (the tool_result the fake sees) is what a card in the bridge gets it to send
// (claude-bridge.test.ts). The agent runs unboxed (TURNBRIDGE_SANDBOX=off from the environment):
// the box's egress filter would need the fake's loopback port declared in the shipped profile.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FakeAnthropic } from '../fakes/model-apis/index.js';
import { runCli } from '../integration/cli/cli-process.js';
import { ROOT, RealCliWorld, skipUnless } from './real-cli-harness.js';
import { scriptSteps } from './shared-checks.js';
import { COLOR } from '../fixtures/card-agents/questions.mjs';

const skip = skipUnless('claude');
let world: RealCliWorld<FakeAnthropic>;
before(async () => {
  if (!skip) world = await new RealCliWorld('claude', new FakeAnthropic()).start();
});
after(async () => {
  await world?.close();
});

/** `turnbridge chat <profile>` in the world's HOME with `lines` typed; the tool results the model got, in order. */
async function chat(profile: string, lines: string[]): Promise<{ out: string; results: string[][] }> {
  const start = world.api.modelCalls.length;
  const r = await runCli(['chat', join(ROOT, 'profiles', profile, 'profile.yaml')], {
    cwd: world.home, env: { ...(world.env({ TURNBRIDGE_SANDBOX: 'off' }) as Record<string, string>) }, input: lines.map((l) => `${l}\n`).join(''),
  });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /error:/, r.stderr);
  return { out: r.stdout, results: world.api.modelCalls.slice(start).map((c) => c.toolResults).filter((t) => t.length > 0) };
}

test('claude asks on the terminal: a number answers; "o" and typed text answer', { skip }, async () => {
  scriptSteps(world, [
    { text: 'One question first.', tool: { name: 'AskUserQuestion', input: { questions: [COLOR] } } },
    { text: 'Noted.' },
    { text: 'Another question.', tool: { name: 'AskUserQuestion', input: { questions: [COLOR] } } },
  ]);
  const r = await chat('claude-code', ['style the button', '2', 'and the border?', 'o', 'Teal, like the sea']);
  assert.match(r.out, /Which color should the button be\?\n\s*1\. Red — Warm and loud/);
  assert.deepEqual(r.results, [
    ['Your questions have been answered: "Which color should the button be?"="Blue". You can now continue with these answers in mind.'],
    ['The user answered: "Which color should the button be?"="Teal, like the sea". Read the answers carefully — they may request clarification, changes, or that you not proceed — and follow what they actually say.'],
  ], r.out);
});

test('claude plans on the terminal: Keep planning sends the feedback word for word; Approve lets claude start', { skip }, async () => {
  scriptSteps(world, [
    { text: 'The plan is ready.', tool: { name: 'ExitPlanMode', input: { plan: '1. Rewrite everything' } } },
    { text: 'Planning again.' },
    { text: 'A smaller plan.', tool: { name: 'ExitPlanMode', input: { plan: '1. Change one thing' } } },
  ]);
  const r = await chat('claude-code-plan', ['refactor it', 'k', 'Smaller steps, please.', 'then?', 'a']);
  assert.match(r.out, /1\. Rewrite everything[\s\S]*Keep planning/);
  assert.deepEqual(r.results[0], ['Smaller steps, please.'], r.out);
  // a plan given in the call, not in a plan file: claude 2.1.332's words for an approval then
  assert.deepEqual(r.results[1], ['User has approved exiting plan mode. You can now proceed.'], r.out);
});
