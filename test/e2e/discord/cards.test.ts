/**
 * Cards end to end on Discord (issue 26): real discord.js against the fake (buttons, a string
 * select menu, modals), the real bridge, a real agent process asking as the claude-code wrapper
 * does (test/fixtures/card-agents). A question of 3 options answered by a click (the exact answers
 * reach the agent), a multi-select picked in its menu and sent with Submit, "Other…" typed in a
 * modal, a stranger refused, a question that times out; a plan approved and one sent back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { FakeMessage } from '../../fakes/discord/index.js';
import { COLOR, FEATURES } from '../../fixtures/card-agents/questions.mjs';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

const CARDS = join(process.cwd(), 'test/fixtures/card-agents/profile.yaml');
const PLAN = join(process.cwd(), 'test/fixtures/card-agents/plan.yaml');
const OTHER = join(process.cwd(), 'test/fixtures/card-agents/other.yaml');
const answerIn = (parts: FakeMessage[]) => JSON.parse(/answered updated_input=(.*)$/m.exec(parts.map((p) => p.content).join('\n'))![1]!);

describe('discord cards (real discord.js + bridge + agent)', () => {
  let rig: TurnRig;

  before(async () => {
    rig = await makeTurnRig({ config: { defaultProfile: CARDS, profiles: [PLAN, OTHER] } });
  });
  after(async () => {
    await rig.close();
  });

  const controls = (m: FakeMessage) => m.components.flatMap((r) => r.components);
  const idOf = (m: FakeMessage, label: string) => {
    const c = controls(m).find((x) => (x.label ?? x.placeholder) === label);
    assert.ok(c, `a "${label}" control (have ${controls(m).map((x) => x.label ?? x.placeholder).join(', ')})`);
    return c.custom_id!;
  };
  const ask = async (text: string) => {
    const { fake } = rig;
    const sent = fake.say(fake.world.general.id, fake.world.users.alice, text, { mention: true });
    await fake.waitFor(() => fake.channels.get(sent.id), 10_000, 'the thread');
    const card = await fake.waitFor(() => fake.botMessages(sent.id).find((m) => /^(❓|📋) \*\*/u.test(m.content)), 15_000, 'the card');
    return { sent, card };
  };
  const decided = (card: FakeMessage) => rig.fake.waitFor(() => (card.components.length === 0 ? card : undefined), 15_000, 'the decided card');

  it('a question of 3 options: a button each, descriptions in the message; a stranger is refused privately; a click sends exactly the answer', async () => {
    const { fake } = rig;
    const { alice, bob } = fake.world.users;
    const { sent, card } = await ask('color');
    assert.match(card.content, /^❓ \*\*Question\*\* · Claude asks: Which color should the button be\?\n\*\*Color\*\* · Which color should the button be\?\n> \*\*Red\*\* — Warm and loud\n> \*\*Blue\*\* — Calm\n> \*\*Green\*\* — Natural\n-# <@\d+> may answer · expires <t:\d+:R>$/);
    assert.deepEqual(card.components.map((r) => r.components.map((c) => c.label)), [['Red', 'Blue', 'Green', 'Other…'], ['Skip']]);
    const refused = fake.click(card.id, idOf(card, 'Red'), bob);
    await fake.waitFor(() => refused.followUps.length > 0 || undefined, 10_000, 'the refusal');
    assert.match(refused.followUps[0]!.content, /^Only @Alice or an approver can answer/);
    assert.equal(refused.followUps[0]!.flags & 64, 64, 'ephemeral');
    fake.click(card.id, idOf(card, 'Blue'), alice);
    const parts = await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('answered'));
    assert.deepEqual(answerIn(parts), { questions: [COLOR], answers: { [COLOR.question]: 'Blue' } });
    await decided(card);
    assert.match(card.content, /✅ Blue — chosen by @Alice\n✅ \*\*Answered\*\* by @Alice <t:\d+:t>/);
  });

  it('a multi-select: a menu of the options (and Other…), the pick kept for Submit; Submit sends the labels joined with ", "', async () => {
    const { fake } = rig;
    const { alice } = fake.world.users;
    const { sent, card } = await ask('features');
    const menu = controls(card).find((c) => c.type === 3)!;
    assert.deepEqual(menu.options!.map((o) => [o.label, o.description]), [['Search', 'Find things'], ['Export', 'CSV files'], ['Dark mode', 'Easy on the eyes'], ['Other…', 'Write your own answer']]);
    assert.equal(menu.max_values, 4);
    const pick = fake.select(card.id, menu.custom_id!, ['0', '2'], alice);
    await fake.waitFor(() => pick.followUps.length > 0 || undefined, 10_000, 'the pick is acknowledged');
    assert.equal(pick.followUps[0]!.content, 'Chosen: Search, Dark mode. Press Submit to send them.');
    fake.click(card.id, idOf(card, 'Submit'), alice);
    const parts = await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('answered'));
    assert.deepEqual(answerIn(parts).answers, { [FEATURES.question]: 'Search, Dark mode' });
  });

  it('"Other…": a modal; its text is the answer (and from the menu of a multi-select too)', async () => {
    const { fake } = rig;
    const { alice, bob } = fake.world.users;
    const { sent, card } = await ask('color');
    const click = fake.click(card.id, idOf(card, 'Other…'), alice);
    await fake.waitFor(() => click.modal, 10_000, 'the modal');
    assert.equal(click.modal!.title, 'Your answer');
    assert.equal(click.modal!.components[0]!.label, 'Which color should the button be?');
    const forged = fake.submitModal(click, bob, 'Black');
    await fake.waitFor(() => forged.followUps.length > 0 || forged.ack?.type === 4 || undefined, 10_000, 'the refusal');
    fake.submitModal(click, alice, 'Teal, like the sea');
    const parts = await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('answered'));
    assert.deepEqual(answerIn(parts).answers, { [COLOR.question]: 'Teal, like the sea' });
    const multi = await ask('features');
    const viaMenu = fake.select(multi.card.id, controls(multi.card).find((c) => c.type === 3)!.custom_id!, ['other'], alice);
    await fake.waitFor(() => viaMenu.modal, 10_000, 'the modal from the menu');
    fake.submitModal(viaMenu, alice, 'Only search, for now');
    const more = await rig.finalReply(multi.sent.id, multi.sent, 20_000, (t) => t.includes('answered'));
    assert.deepEqual(answerIn(more).answers, { [FEATURES.question]: 'Only search, for now' });
  });

  it('a question nobody answers expires on its own timeout: the card says so, the agent is told', async () => {
    const { fake } = rig;
    rig.config.routes.push({ platform: 'discord', channel: fake.world.general.id, profile: CARDS, questionTimeoutSecs: 1 });
    try {
      const { sent, card } = await ask('color');
      const parts = await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('denied'));
      assert.match(parts.map((p) => p.content).join('\n'), /denied: No one answered within 1 s: the question expired unanswered\./);
      await decided(card);
      assert.match(card.content, /⌛ \*\*Not answered in time\*\* <t:\d+:t>\n-# no one answered within 1 s: the agent was told so/);
    } finally {
      rig.config.routes.pop();
    }
  });

  it('a plan: approved; another sent back with feedback from a modal', async () => {
    const { fake } = rig;
    const { alice } = fake.world.users;
    const one = await ask('plan');
    assert.match(one.card.content, /^📋 \*\*Plan ready\*\*\nThe plan is above\./);
    assert.match(rig.replies(one.sent.id, one.sent).map((m) => m.content).join('\n'), /# Plan\n\n1\. Read the code\n2\. Fix the bug/);
    fake.click(one.card.id, idOf(one.card, 'Approve'), alice);
    assert.match((await rig.finalReply(one.sent.id, one.sent, 20_000, (t) => /^approved$/m.test(t))).map((p) => p.content).join('\n'), /^approved$/m);
    await decided(one.card);
    assert.match(one.card.content, /✅ \*\*Plan approved\*\* by @Alice/);
    const two = await ask('plan');
    const click = fake.click(two.card.id, idOf(two.card, 'Keep planning…'), alice);
    await fake.waitFor(() => click.modal, 10_000, 'the feedback modal');
    fake.submitModal(click, alice, 'Write the test first.');
    const parts = await rig.finalReply(two.sent.id, two.sent, 20_000, (t) => t.includes('revise'));
    assert.match(parts.map((p) => p.content).join('\n'), /revise: Write the test first\./);
    await decided(two.card);
    assert.match(two.card.content, /↩️ \*\*Sent back to keep planning\*\* by @Alice <t:\d+:t>: “Write the test first\.”/);
  });

  it('use: a thread switches to the plan profile with its session, back after an approved plan, and to another agent with a new session', async () => {
    const { fake } = rig;
    const { alice } = fake.world.users;
    const sent = fake.say(fake.world.general.id, alice, 'session', { mention: true });
    await fake.waitFor(() => fake.channels.get(sent.id), 10_000, 'the thread');
    const first = await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('session in='));
    const session = /session in=\(none\) now=(sess-[0-9a-f]+) profile=cards/.exec(first.map((p) => p.content).join('\n'))?.[1];
    assert.ok(session);
    const say = async (text: string, until: RegExp) => {
      const m = fake.say(sent.id, alice, text);
      return (await rig.finalReply(sent.id, m, 20_000, (t) => until.test(t))).map((p) => p.content).join('\n');
    };
    assert.match(await say('use', /use <name>/), /This thread uses `cards` — asks questions and shows plans as the claude-code wrapper does\. `use <name>` switches its next messages to:\n• `cards-plan`/);
    assert.match(await say('use cards-plan', /now uses/), /This thread now uses `cards-plan` — the cards agent, planning first, from the next message\. The session carries over/);
    assert.match(await say('session', /session in=/), new RegExp(`session in=${session} now=${session} profile=cards-plan`));
    const planned = fake.say(sent.id, alice, 'plan');
    const card = await fake.waitFor(() => fake.botMessages(sent.id).find((m) => BigInt(m.id) > BigInt(planned.id) && m.content.startsWith('📋')), 15_000, 'the plan card');
    assert.match(card.content, /-# Once approved, this thread's next messages use cards\./);
    fake.click(card.id, idOf(card, 'Approve'), alice);
    await rig.finalReply(sent.id, planned, 20_000, (t) => /^approved$/m.test(t));
    await decided(card);
    assert.match(card.content, /-# This thread's next messages use cards\.$/);
    assert.match(await say('session', /session in=/), new RegExp(`session in=${session} now=${session} profile=cards`));
    assert.match(await say('use other-agent', /now uses/), /It runs another agent than `cards`: the next message starts a new session\./);
    assert.match(await say('session', /session in=/), /session in=\(none\) now=sess-[0-9a-f]+ profile=other-agent/);
  });
});
