// Cards with the real claude (pinned in clis.json) through the whole bridge (issue 26): the fake
// Anthropic API makes claude ask or plan, the question or plan arrives as a card on the fake
// Discord (real discord.js, the real bridge), the test clicks as a person would, and what claude
// sent back to the model (the tool_result the fake sees) is asserted. A question answered by a
// click and by "Other…"; `use claude-code-plan`, a plan approved (claude leaves plan mode; the
// thread goes back to claude-code with its session) and a plan sent back with feedback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FakeAnthropic, type ModelCall } from '../fakes/model-apis/index.js';
import type { FakeMessage } from '../fakes/discord/index.js';
import { makeTurnRig, type TurnRig } from '../e2e/discord/turn-rig.js';
import { ROOT, RealCliWorld, skipUnless } from './real-cli-harness.js';
import { scriptSteps } from './shared-checks.js';
import { COLOR, PLAN } from '../fixtures/card-agents/questions.mjs';

const skip = skipUnless('claude');
let world: RealCliWorld<FakeAnthropic>;
let rig: TurnRig;
/** The profile (its name) each turn the bridge started ran. */
const ran: Array<string | undefined> = [];
before(async () => {
  if (skip) return;
  world = await new RealCliWorld('claude', new FakeAnthropic()).start();
  const runner = world.bridgeRunner();
  rig = await makeTurnRig({
    config: { defaultProfile: join(ROOT, 'profiles/claude-code/profile.yaml'), profiles: [join(ROOT, 'profiles/claude-code-plan/profile.yaml')] },
    runTurn: (profile, ...rest) => { ran.push(profile.name); return runner(profile, ...rest); },
  });
});
after(async () => {
  await rig?.close();
  await world?.close();
});

const controls = (m: FakeMessage) => m.components.flatMap((r) => r.components);
const idOf = (m: FakeMessage, label: string) => {
  const c = controls(m).find((x) => x.label === label);
  assert.ok(c, `a "${label}" control (have ${controls(m).map((x) => x.label).join(', ')})`);
  return c.custom_id!;
};
/** The next card (❓ or 📋) in `channel` after `after`. */
const cardAfter = (channel: string, after: FakeMessage) => rig.fake.waitFor(
  () => rig.fake.botMessages(channel).find((m) => BigInt(m.id) > BigInt(after.id) && /^(❓|📋) \*\*/u.test(m.content)), 120_000, 'the card');
const textOf = (parts: FakeMessage[]) => parts.map((p) => p.content).join('\n');
/** The plan file claude tells the model to write (plan mode's system reminder). */
const planPath = (call: ModelCall) => /create your plan at (\S+?\.md)/.exec(call.request.raw)![1]!;

test('claude asks through the bridge: a click answers; "Other…" typed in a modal answers', { skip }, async () => {
  const { fake } = rig;
  const { alice } = fake.world.users;
  scriptSteps(world, [{ text: 'One question first.', tool: { name: 'AskUserQuestion', input: { questions: [COLOR] } } }]);
  const sent = fake.say(fake.world.general.id, alice, 'style the button', { mention: true });
  await fake.waitFor(() => fake.channels.get(sent.id), 10_000, 'the thread');
  const card = await cardAfter(sent.id, sent);
  assert.match(card.content, /^❓ \*\*Question\*\* · Claude asks: Which color should the button be\?\n\*\*Color\*\* · Which color should the button be\?\n> \*\*Red\*\* — Warm and loud/);
  fake.click(card.id, idOf(card, 'Blue'), alice);
  const parts = await rig.finalReply(sent.id, sent, 120_000, (t) => t.includes('Tool said'));
  assert.deepEqual(world.api.modelCalls.at(-1)!.toolResults, ['Your questions have been answered: "Which color should the button be?"="Blue". You can now continue with these answers in mind.']);
  assert.match(textOf(parts), /Tool said: Your questions have been answered/);

  scriptSteps(world, [{ text: 'Another question.', tool: { name: 'AskUserQuestion', input: { questions: [COLOR] } } }]);
  const again = fake.say(sent.id, alice, 'and the border?');
  const second = await cardAfter(sent.id, again);
  const click = fake.click(second.id, idOf(second, 'Other…'), alice);
  await fake.waitFor(() => click.modal, 10_000, 'the modal');
  fake.submitModal(click, alice, 'Teal, like the sea');
  await rig.finalReply(sent.id, again, 120_000, (t) => t.includes('Tool said'));
  assert.deepEqual(world.api.modelCalls.at(-1)!.toolResults, ['The user answered: "Which color should the button be?"="Teal, like the sea". Read the answers carefully — they may request clarification, changes, or that you not proceed — and follow what they actually say.']);
});

test('claude plans through the bridge: use claude-code-plan; Approve (claude starts, the thread goes back to claude-code with its session); Keep planning sends the feedback', { skip }, async () => {
  const { fake } = rig;
  const { alice } = fake.world.users;
  scriptSteps(world, [{ text: 'Hello.' }]);
  const sent = fake.say(fake.world.general.id, alice, 'hello', { mention: true });
  await fake.waitFor(() => fake.channels.get(sent.id), 10_000, 'the thread');
  await rig.finalReply(sent.id, sent, 120_000, (t) => t.includes('Hello.'));
  const sessionOf = (call: ModelCall | undefined) => call?.request.headers['x-claude-code-session-id'];
  const session = sessionOf(world.api.modelCalls.at(-1));
  assert.ok(session, 'claude names its session to the API');
  const use = fake.say(sent.id, alice, 'use claude-code-plan');
  assert.match(textOf(await rig.finalReply(sent.id, use, 20_000, (t) => t.includes('now uses'))), /This thread now uses `claude-code-plan` — .*The session carries over \(the same agent\)\./);

  // Approve: the plan file's text in the reply above the card; claude leaves plan mode and its tools ask as usual.
  let file = '';
  scriptSteps(world, [
    (call) => { file = planPath(call); return { text: 'Writing the plan.', tool: { name: 'Write', input: { file_path: file, content: PLAN } } }; },
    { text: 'The plan is ready.', tool: { name: 'ExitPlanMode', input: {} } },
  ]);
  const fix = fake.say(sent.id, alice, 'fix the bug');
  const card = await cardAfter(sent.id, fix);
  assert.equal(sessionOf(world.api.modelCalls.at(-1)), session, 'the plan profile resumed the same session');
  assert.equal(ran.at(-1), 'claude-code-plan');
  assert.match(card.content, /^📋 \*\*Plan ready\*\*\nThe plan is above\./);
  assert.match(card.content, /Once approved, this thread's next messages use claude-code\./);
  // the part above the card shows the plan once its edit lands (paced as any edit)
  await fake.waitFor(() => /# Plan\n\n1\. Read the code\n2\. Fix the bug/.test(textOf(rig.replies(sent.id, fix).filter((m) => BigInt(m.id) < BigInt(card.id)))) || undefined, 20_000, 'the plan above the card');
  fake.click(card.id, idOf(card, 'Approve'), alice);
  await rig.finalReply(sent.id, fix, 120_000, (t) => t.includes('Tool said'));
  const approved = world.api.modelCalls.at(-1)!.toolResults[0]!;
  assert.match(approved, /^User has approved your plan\. You can now start coding\./);
  assert.ok(approved.includes(`## Approved Plan:\n${PLAN}`), approved);
  scriptSteps(world, [{ text: 'Back on the default profile.' }]);
  const next = fake.say(sent.id, alice, 'what now?');
  await rig.finalReply(sent.id, next, 120_000, (t) => t.includes('Back on the default profile.'));
  assert.equal(sessionOf(world.api.modelCalls.at(-1)), session, 'claude-code resumed the session with the approved plan in it');
  assert.equal(ran.at(-1), 'claude-code', 'back on claude-code: not planned again');

  // Keep planning: the feedback is the tool result, word for word.
  await rig.finalReply(sent.id, fake.say(sent.id, alice, 'use claude-code-plan'), 20_000, (t) => t.includes('now uses'));
  scriptSteps(world, [{ text: 'The plan is ready.', tool: { name: 'ExitPlanMode', input: { plan: '1. Rewrite everything' } } }]);
  const big = fake.say(sent.id, alice, 'refactor it');
  const second = await cardAfter(sent.id, big);
  const click = fake.click(second.id, idOf(second, 'Keep planning…'), alice);
  await fake.waitFor(() => click.modal, 10_000, 'the feedback modal');
  fake.submitModal(click, alice, 'Smaller steps, please.');
  await rig.finalReply(sent.id, big, 120_000, (t) => t.includes('Tool said'));
  assert.deepEqual(world.api.modelCalls.at(-1)!.toolResults, ['Smaller steps, please.']);
});
