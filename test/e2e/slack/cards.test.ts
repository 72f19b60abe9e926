/**
 * Cards end to end on Slack (issue 26): the real Bolt app against the fake, the real bridge, a real
 * agent process asking as the claude-code wrapper does (test/fixtures/card-agents). A question of
 * 3 options answered by a click (the agent gets the exact answers), a multi-select's checkboxes and
 * Submit, "Other…" typed in a modal, a stranger refused, a question that times out; a plan approved
 * and one sent back with feedback.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BOT_USER, buttons, contextLines, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { answerOf, makeTurnRig, type TurnRig } from './turn-rig.js';
import { COLOR, FEATURES } from '../../fixtures/card-agents/questions.mjs';

const CARDS = join(process.cwd(), 'test/fixtures/card-agents/profile.yaml');
const PLAN = join(process.cwd(), 'test/fixtures/card-agents/plan.yaml');
const OTHER = join(process.cwd(), 'test/fixtures/card-agents/other.yaml');
const mention = (text: string): string => `<@${BOT_USER}> ${text}`;
const sections = (m: FakeMessage): string => m.blocks.filter((b) => b.type === 'section').map((b) => String(b.text.text)).join('\n');

describe('slack cards (real Bolt + bridge + agent)', () => {
  let rig: TurnRig;

  before(async () => {
    rig = await makeTurnRig({
      slack: { streaming: 'edit' },
      config: {
        routes: [
          { platform: 'slack', channel: 'C0CARD', profile: CARDS, profiles: [PLAN, OTHER] },
          // a short question timeout here: the card's own expiry, seen through the platform
          { platform: 'slack', channel: 'C0SLOW', profile: CARDS, questionTimeoutSecs: 1 },
        ],
      },
    });
  });
  after(async () => {
    await rig.close();
  });

  const click = (user: string, actionId: string, card: FakeMessage, ticked?: Record<string, string[]>) =>
    rig.fake.click({ user, userName: user === 'U0ANA' ? 'ana' : 'ben', actionId, value: buttons(card).find((b) => b.action_id === actionId)?.value ?? '', channel: card.channel, messageTs: card.ts, ...(ticked ? { ticked } : {}) });
  const cardIn = (channel: string, ts: string) => rig.fake.waitFor(() => rig.prompts(channel, ts)[0], 'the card');

  it('a question of 3 options: each a button, its description shown; a stranger is refused privately; a click sends exactly the answer', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0CARD', user: 'U0ANA', text: mention('color') });
    const card = await cardIn('C0CARD', ts);
    assert.match(sections(card), /^:question: \*Question\* · Claude asks: Which color should the button be\?/);
    assert.match(sections(card), /\*Color\* · Which color should the button be\?\n• \*Red\* — Warm and loud\n• \*Blue\* — Calm\n• \*Green\* — Natural/);
    assert.deepEqual(buttons(card).map((b) => b.action_id), ['tb_answer_0_0', 'tb_answer_0_1', 'tb_answer_0_2', 'tb_other_0', 'tb_skip']);
    assert.ok(buttons(card).every((b) => b.value === buttons(card)[0]!.value), 'every button carries the card id');
    assert.match(contextLines(card).join(' '), /<@U0ANA> may answer · expires <!date\^\d+\^\{time\}\|/);
    const eph = fake.ephemerals.length;
    await click('U0BEN', 'tb_answer_0_0', card);
    await fake.waitFor(() => fake.ephemerals.length > eph, 'the refusal');
    assert.match(fake.ephemerals.at(-1)!.text, /^Only @ana or an approver can answer/);
    assert.equal(fake.ephemerals.at(-1)!.user, 'U0BEN');
    await click('U0ANA', 'tb_answer_0_1', card);
    const parts = await rig.finalReply('C0CARD', ts, ts);
    const got = /answered updated_input=(.*)$/m.exec(answerOf(parts));
    assert.deepEqual(JSON.parse(got![1]!), { questions: [COLOR], answers: { [COLOR.question]: 'Blue' } });
    const decided = await rig.decidedPrompt('C0CARD', card.ts);
    assert.match(contextLines(decided).join('\n'), /:white_check_mark: Blue — chosen by <@U0ANA>/);
    assert.match(contextLines(decided).join('\n'), /:white_check_mark: Answered by <@U0ANA> at <!date/);
  });

  it('a multi-select: checkboxes with their descriptions and Submit; the ticked labels are joined with ", "', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0CARD', user: 'U0ANA', text: mention('features') });
    const card = await cardIn('C0CARD', ts);
    const boxes = card.blocks.find((b) => b.type === 'actions' && b.block_id === 'tb_q_0')!.elements[0];
    assert.equal(boxes.type, 'checkboxes');
    assert.deepEqual(boxes.options.map((o: any) => [o.text.text, o.description.text]), [['Search', 'Find things'], ['Export', 'CSV files'], ['Dark mode', 'Easy on the eyes']]);
    // nothing ticked: told privately, nothing sent
    const eph = fake.ephemerals.length;
    await click('U0ANA', 'tb_submit_0', card, { tb_pick_0: [] });
    await fake.waitFor(() => fake.ephemerals.length > eph, 'the hint');
    assert.equal(fake.ephemerals.at(-1)!.text, 'Pick at least one option first.');
    await click('U0ANA', 'tb_submit_0', card, { tb_pick_0: ['2', '0'] });
    const parts = await rig.finalReply('C0CARD', ts, ts);
    const got = /answered updated_input=(.*)$/m.exec(answerOf(parts));
    assert.deepEqual(JSON.parse(got![1]!).answers, { [FEATURES.question]: 'Search, Dark mode' });
  });

  it('"Other…": a modal with the question; its text is the answer; a stranger\'s submission is refused in the modal', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0CARD', user: 'U0ANA', text: mention('color') });
    const card = await cardIn('C0CARD', ts);
    const opened = fake.views.length;
    await click('U0ANA', 'tb_other_0', card);
    const modal = await fake.waitFor(() => fake.views[opened], 'the modal');
    assert.equal(modal.view.title.text, 'Your answer');
    assert.match(JSON.stringify(modal.view.blocks), /Which color should the button be\?/);
    const refused = await fake.submitView({ user: 'U0BEN', userName: 'ben', value: 'Black', view: modal.view });
    assert.equal(refused?.response_action, 'errors');
    assert.equal(await fake.submitView({ user: 'U0ANA', userName: 'ana', value: 'Teal, like the sea', view: modal.view }), undefined);
    const parts = await rig.finalReply('C0CARD', ts, ts);
    assert.deepEqual(JSON.parse(/answered updated_input=(.*)$/m.exec(answerOf(parts))![1]!).answers, { [COLOR.question]: 'Teal, like the sea' });
    assert.match(contextLines(await rig.decidedPrompt('C0CARD', card.ts)).join('\n'), /“Teal, like the sea” — written by <@U0ANA>/);
  });

  it('two questions in one card: the first answer shows at once, the agent hears both once the second is in', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0CARD', user: 'U0ANA', text: mention('two') });
    const card = await cardIn('C0CARD', ts);
    await click('U0ANA', 'tb_answer_0_2', card);
    const half = await fake.waitFor(() => {
      const m = fake.message('C0CARD', card.ts)!;
      return contextLines(m).some((l) => l.includes('Green — chosen by')) ? m : undefined;
    }, 'the first answer on the card');
    assert.deepEqual(buttons(half).map((b) => b.action_id), ['tb_pick_1', 'tb_submit_1', 'tb_other_1', 'tb_skip'], 'the first question\'s buttons are gone');
    await click('U0ANA', 'tb_submit_1', half, { tb_pick_1: ['1'] });
    const parts = await rig.finalReply('C0CARD', ts, ts);
    assert.deepEqual(JSON.parse(/answered updated_input=(.*)$/m.exec(answerOf(parts))![1]!).answers, { [COLOR.question]: 'Green', [FEATURES.question]: 'Export' });
  });

  it('a question nobody answers expires on its own timeout (question_timeout_secs): the card says so, the agent is told', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0SLOW', user: 'U0ANA', text: mention('color') });
    const card = await cardIn('C0SLOW', ts);
    const parts = await rig.finalReply('C0SLOW', ts, ts);
    assert.match(answerOf(parts), /denied: No one answered within 1 s: the question expired unanswered\./);
    const decided = await rig.decidedPrompt('C0SLOW', card.ts);
    assert.match(contextLines(decided).join('\n'), /:hourglass: Not answered in time at <!date.* - no one answered within 1 s: the agent was told so/);
  });

  it('a plan: its text in the reply above the card; Approve lets the agent start', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0CARD', user: 'U0ANA', text: mention('plan') });
    const card = await cardIn('C0CARD', ts);
    assert.match(sections(card), /^:clipboard: \*Plan ready\*\nThe plan is above\. “Approve” lets the agent start; “Keep planning” sends it back with your feedback\./);
    const above = rig.replies('C0CARD', ts).filter((m) => Number(m.ts) < Number(card.ts));
    assert.match(above.map(visibleText).join(''), /# Plan\n\n1\. Read the code\n2\. Fix the bug\n3\. Run the tests/);
    assert.deepEqual(buttons(card).map((b) => b.action_id), ['tb_approve', 'tb_revise']);
    await click('U0ANA', 'tb_approve', card);
    const parts = await rig.finalReply('C0CARD', ts, ts);
    assert.match(answerOf(parts), /^approved$/m);
    assert.match(contextLines(await rig.decidedPrompt('C0CARD', card.ts)).join('\n'), /:white_check_mark: Plan approved by <@U0ANA>/);
  });

  it('a plan sent back: Keep planning opens a modal; the feedback is what the agent reads; a plan already streamed is not shown twice', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0CARD', user: 'U0ANA', text: mention('plan said') });
    const card = await cardIn('C0CARD', ts);
    const opened = fake.views.length;
    await click('U0ANA', 'tb_revise', card);
    const modal = await fake.waitFor(() => fake.views[opened], 'the feedback modal');
    assert.equal(modal.view.title.text, 'Keep planning');
    assert.equal(await fake.submitView({ user: 'U0ANA', userName: 'ana', value: 'Write the test first.', view: modal.view }), undefined);
    const parts = await rig.finalReply('C0CARD', ts, ts);
    const text = answerOf(parts);
    assert.match(text, /revise: Write the test first\.$/m);
    assert.equal(text.split('1. Read the code').length, 2, 'the plan shows once');
    assert.match(contextLines(await rig.decidedPrompt('C0CARD', card.ts)).join('\n'), /:leftwards_arrow_with_hook: Sent back to keep planning by <@U0ANA> at .*: “Write the test first\.”/);
  });

  it('what the agent spells as mentions in a card, a plan or a prompt pings no one (text, blocks, the reply)', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0CARD', user: 'U0ANA', text: mention('ping') });
    const question = await cardIn('C0CARD', ts);
    await click('U0ANA', 'tb_answer_0_1', question);
    const plan = await fake.waitFor(() => rig.prompts('C0CARD', ts).find((m) => m.ts !== question.ts), 'the plan card');
    await click('U0ANA', 'tb_approve', plan);
    const prompt = await fake.waitFor(() => rig.prompts('C0CARD', ts).find((m) => m.ts !== question.ts && m.ts !== plan.ts), 'the prompt');
    await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_deny', value: buttons(prompt).find((b) => b.action_id === 'tb_deny')!.value, channel: 'C0CARD', messageTs: prompt.ts });
    const parts = await rig.finalReply('C0CARD', ts, ts);
    assert.match(answerOf(parts), /^allow allow deny$/m);
    assert.match(answerOf(parts), /# <!channel> <!here> <@U0BEN>|# &lt;!channel> &lt;!here> &lt;@U0BEN>/, 'the plan is in the reply, shown as text');
    // What Slack parses for mentions: the notification text, mrkdwn texts and markdown blocks (plain_text never is).
    const parsed = (v: unknown): string[] => (Array.isArray(v) ? v.flatMap(parsed) : v && typeof v === 'object'
      ? [...(['mrkdwn', 'markdown'].includes(String((v as { type?: unknown }).type)) ? [String((v as { text?: unknown }).text)] : []), ...Object.values(v).flatMap(parsed)]
      : []);
    for (const m of fake.botMessages('C0CARD', ts)) {
      for (const version of [m, ...m.history]) {
        const shown = [version.text ?? '', ...parsed(version.blocks)].join('\n');
        assert.doesNotMatch(shown, /<!(channel|here|everyone)>|<@U0BEN>/, `a ping in ${m.ts}: ${shown.slice(0, 300)}`);
      }
    }
  });

  it('use: the thread lists its profiles and switches; the same agent keeps the session, another starts a new one; an approved plan moves the thread back', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0CARD', user: 'U0ANA', text: mention('session') });
    const session = /^session in=\(none\) now=(sess-[0-9a-f]+) profile=cards$/m.exec(answerOf(await rig.finalReply('C0CARD', ts, ts)))?.[1];
    assert.ok(session, 'the first turn made a session');
    const say = async (text: string) => {
      const m = await fake.userMessage({ channel: 'C0CARD', user: 'U0ANA', text, threadTs: ts });
      return fake.waitFor(() => rig.replies('C0CARD', ts).filter((x) => Number(x.ts) > Number(m.ts) && visibleText(x).trim() && !contextLines(x).some((l) => l.includes(':hourglass_flowing_sand:'))).at(-1), `the answer to ${text}`).then(visibleText);
    };
    assert.match(await say('use'), /^This thread uses `cards` — asks questions and shows plans as the claude-code wrapper does\. `use <name>` switches its next messages to:\n• `cards-plan` — the cards agent, planning first\n• `other-agent` — another CLI \(another agent: a new session\)/);
    assert.match(await say('use cards-plan'), /^This thread now uses `cards-plan` — the cards agent, planning first, from the next message\. The session carries over \(the same agent\)\./);
    assert.equal(await say('session'), `session in=${session} now=${session} profile=cards-plan`);
    // a plan: the card says where the thread goes once approved, and it goes there
    const planned = await fake.userMessage({ channel: 'C0CARD', user: 'U0ANA', text: 'plan', threadTs: ts });
    const card = await fake.waitFor(() => rig.prompts('C0CARD', ts).find((m) => Number(m.ts) > Number(planned.ts)), 'the plan card');
    assert.match(contextLines(card).join(' '), /Once approved, this thread's next messages use cards\./);
    await click('U0ANA', 'tb_approve', card);
    assert.match(contextLines(await rig.decidedPrompt('C0CARD', card.ts)).join(' '), /Plan approved by <@U0ANA> at .* · This thread's next messages use cards\./);
    await fake.waitFor(() => rig.replies('C0CARD', ts).some((x) => Number(x.ts) > Number(card.ts) && /^approved$/m.test(visibleText(x))), 'the approved turn');
    await rig.finalReply('C0CARD', ts, planned.ts);
    assert.equal(await say('session'), `session in=${session} now=${session} profile=cards`);
    assert.match(await say('use other-agent'), /It runs another agent than `cards`: the next message starts a new session\./);
    assert.match(await say('session'), /^session in=\(none\) now=sess-[0-9a-f]+ profile=other-agent$/);
  });
});
