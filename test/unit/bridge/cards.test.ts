/**
 * Question and plan cards at the permission broker (issue 26): what the card shows, what the
 * agent receives for each answer (the exact `updated_input` claude 2.1.332 takes:
 * profiles/claude-code/README.md), who may answer, several questions in one card, and that no
 * thread rule or prompt choice ever answers a card.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { canonical, conversationKey } from '../../../src/state/index.js';
import { cardOf, questionCard } from '../../../src/bridge/approvals/cards.js';
import type { PermissionRequest } from '../../../src/protocol/types.js';
import { rig } from './broker-rig.js';
import { ANA, BOB, BOSS, conv, waitFor } from './helpers.js';
import { COLOR, FEATURES } from '../../fixtures/card-agents/questions.mjs';

const ask = (...questions: object[]): PermissionRequest => ({
  requestId: 'toolu_1', toolName: 'AskUserQuestion', input: { questions }, description: `Claude asks: ${(questions[0] as { question: string }).question}`,
});
const PLAN: PermissionRequest = {
  requestId: 'toolu_2', toolName: 'ExitPlanMode', input: { plan: '# Plan\n\n1. Read\n2. Fix\n', planFilePath: '/h/.claude/plans/x.md' },
  description: "Claude's plan is ready: approve it to start, or keep planning",
};

describe('question cards', () => {
  it('a question with 3 options: the card shows them, no rule and no edit; a click sends exactly {questions, answers}', async () => {
    const r = rig();
    const d = r.ask(ask(COLOR));
    await r.posted(1);
    const view = r.surface.prompts()[0]!.view;
    assert.deepEqual(view.card, {
      kind: 'question',
      questions: [{ text: COLOR.question, header: 'Color', multiSelect: false, options: COLOR.options }],
    });
    assert.equal(view.rule, undefined, 'no "Allow for this thread" on a card');
    assert.equal(view.editable, false);
    const c = r.act('answer', 'p1', ANA, { question: 0, options: [1] });
    await c.run();
    assert.deepEqual(c.told, []);
    assert.deepEqual(await d, { behavior: 'allow', updatedInput: { questions: [COLOR], answers: { [COLOR.question]: 'Blue' } } });
    await waitFor(() => r.surface.prompts()[0]!.view.state === 'allowed', 'the card shows the answer');
    const done = r.surface.prompts()[0]!.view;
    assert.equal(done.how, 'answered');
    assert.deepEqual(done.card?.kind === 'question' && done.card.questions[0]!.answer, { value: 'Blue', by: ANA });
    // the audit trail keeps who answered what
    await r.audit.idle();
    const entry = (await r.audit.since(0)).find((e) => e.kind === 'decision');
    assert.equal(entry?.kind === 'decision' ? entry.source : undefined, 'answer');
    assert.match(entry?.kind === 'decision' ? JSON.stringify(entry.edited) : '', /Blue/);
  });

  it('a multi-select: Submit sends the chosen labels joined with ", " in the card\'s order; nothing chosen is refused privately', async () => {
    const r = rig();
    const d = r.ask(ask(FEATURES));
    await r.posted(1);
    const none = r.act('submit', 'p1', ANA, { question: 0, options: [] });
    await none.run();
    assert.deepEqual(none.told, ['Pick at least one option first.']);
    await r.act('submit', 'p1', ANA, { question: 0, options: [2, 0] }).run();
    assert.deepEqual(await d, { behavior: 'allow', updatedInput: { questions: [FEATURES], answers: { [FEATURES.question]: 'Search, Dark mode' } } });
  });

  it('a select menu (Discord): the pick is kept for that person, and their Submit sends it', async () => {
    const r = rig();
    const d = r.ask(ask(FEATURES), { users: ['U_BOSS'] });
    await r.posted(1);
    const pick = r.act('pick', 'p1', ANA, { question: 0, options: [0, 1] });
    await pick.run();
    assert.deepEqual(pick.told, ['Chosen: Search, Export. Press Submit to send them.']);
    // the boss picked nothing: their Submit sends nothing of ana's pick
    const bossSubmit = r.act('submit', 'p1', BOSS, { question: 0 });
    await bossSubmit.run();
    assert.deepEqual(bossSubmit.told, ['Pick at least one option first.']);
    await r.act('submit', 'p1', ANA, { question: 0 }).run();
    assert.deepEqual((await d).updatedInput?.answers, { [FEATURES.question]: 'Search, Export' });
  });

  it('"Other…" opens a form for that question; the typed text is the answer', async () => {
    const r = rig();
    const d = r.ask(ask(COLOR));
    await r.posted(1);
    const other = r.act('other', 'p1', ANA, { question: 0 });
    await other.run();
    assert.deepEqual(other.forms, [{ kind: 'other', promptId: 'p1', toolName: 'AskUserQuestion', question: 0, title: 'Your answer', label: COLOR.question }]);
    assert.deepEqual(await r.submit('other', 'p1', '   ', ANA, 0), { ok: false, error: 'Write an answer, or close this and pick an option.' });
    assert.deepEqual(await r.submit('other', 'p1', 'Teal, like the sea', ANA, 0), { ok: true });
    assert.deepEqual((await d).updatedInput?.answers, { [COLOR.question]: 'Teal, like the sea' });
    await waitFor(() => r.surface.prompts()[0]!.view.state === 'allowed', 'answered');
    const q = r.surface.prompts()[0]!.view.card;
    assert.deepEqual(q?.kind === 'question' && q.questions[0]!.answer, { value: 'Teal, like the sea', by: ANA, typed: true });
  });

  it('several questions: one card; each answer shows at once, the agent hears them all once the last is answered', async () => {
    const r = rig();
    let settled = false;
    const d = r.ask(ask(COLOR, FEATURES)).then((x) => ((settled = true), x));
    await r.posted(1);
    await r.act('answer', 'p1', ANA, { question: 0, options: [2] }).run();
    await waitFor(() => {
      const c = r.surface.prompts()[0]!.view.card;
      return c?.kind === 'question' && c.questions[0]!.answer !== undefined;
    }, 'the first answer shown');
    assert.equal(settled, false, 'one question still open');
    assert.equal(r.surface.prompts()[0]!.view.state, 'pending');
    const again = r.act('answer', 'p1', BOB, { question: 0, options: [0] });
    await again.run();
    assert.match(again.told[0]!, /^Only @ana or an approver can answer/);
    const twice = r.act('answer', 'p1', ANA, { question: 0, options: [0] });
    await twice.run();
    assert.deepEqual(twice.told, ['This question was already answered by @ana: Green']);
    await r.act('submit', 'p1', ANA, { question: 1, options: [1] }).run();
    assert.deepEqual(await d, {
      behavior: 'allow',
      updatedInput: { questions: [COLOR, FEATURES], answers: { [COLOR.question]: 'Green', [FEATURES.question]: 'Export' } },
    });
  });

  it('a stranger is refused privately, by click and by form; an approver may answer; the author may under approvals: approvers', async () => {
    const r = rig();
    const d = r.ask(ask(COLOR), { users: ['U_BOSS'], approvals: 'approvers' });
    await r.posted(1);
    const bob = r.act('answer', 'p1', BOB, { question: 0, options: [0] });
    await bob.run();
    assert.deepEqual(bob.told, ['Only @ana or an approver can answer this request (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).']);
    const form = await r.submit('other', 'p1', 'pwned', BOB, 0);
    assert.equal(form.ok, false);
    assert.equal(r.surface.prompts()[0]!.view.state, 'pending');
    // answering runs nothing: the four-eyes rule is for tools, not for the author's own question
    await r.act('answer', 'p1', ANA, { question: 0, options: [0] }).run();
    assert.deepEqual((await d).updatedInput?.answers, { [COLOR.question]: 'Red' });
    const r2 = rig();
    const d2 = r2.ask(ask(COLOR), { users: ['U_BOSS'] });
    await r2.posted(1);
    await r2.act('answer', 'p1', BOSS, { question: 0, options: [2] }).run();
    assert.deepEqual((await d2).updatedInput?.answers, { [COLOR.question]: 'Green' });
  });

  it('Skip denies, with a message the model reads', async () => {
    const r = rig();
    const d = r.ask(ask(COLOR));
    await r.posted(1);
    await r.act('skip', 'p1', ANA).run();
    assert.deepEqual(await d, { behavior: 'deny', message: 'The user chose not to answer (skipped by @ana). Go on without these answers, or ask in your reply.' });
    const late = r.act('answer', 'p1', ANA, { question: 0, options: [0] });
    await late.run();
    assert.deepEqual(late.told, ['This question was skipped by @ana.']);
  });

  it('never answered by a thread rule, never offered one, and a prompt\'s Allow / Allow for this thread / Edit do nothing on it', async () => {
    const r = rig();
    const key = conversationKey('test', conv('C1', 'th1'));
    // a rule as an older bridge could have stored it (a question shown as a generic prompt, "Allow for everyone in this thread")
    const input = JSON.stringify(canonical({ questions: [COLOR] }));
    await r.rules.add(key, { v: 2, rule: { kind: 'input', tool: 'AskUserQuestion', input }, scope: { kind: 'thread' }, setBy: { platform: 'test', id: 'U_ANA' }, setAt: 1 });
    let settled = false;
    const d = r.ask(ask(COLOR)).then((x) => ((settled = true), x));
    await r.posted(1);
    assert.deepEqual(r.lines, [], 'no auto-allow');
    for (const action of ['allow', 'allow_thread', 'allow_thread_all', 'edit', 'deny_reason', 'approve'] as const) {
      const c = r.act(action, 'p1', ANA);
      await c.run();
      assert.deepEqual(c.told, ['This is a question: pick an option, or Other… to write your own answer.'], action);
      assert.deepEqual(c.forms, [], action);
    }
    assert.deepEqual(await r.submit('edit', 'p1', '{"questions":[],"answers":{}}'), { ok: false, error: 'This form does not belong to this question.' });
    assert.equal(settled, false);
    assert.equal((await r.rules.list(key)).length, 1, 'no rule added');
    await r.act('answer', 'p1', ANA, { question: 0, options: [0] }).run();
    assert.equal((await d).behavior, 'allow');
  });

  it('bad choices are refused with a reason: an option or a question not on the card', async () => {
    const r = rig();
    const d = r.ask(ask(COLOR));
    await r.posted(1);
    for (const [choice, text] of [
      [{ question: 0, options: [3] }, 'That option is not on this card.'],
      [{ question: 0, options: [-1] }, 'That option is not on this card.'],
      [{ question: 0, options: [0, 1] }, 'This question takes one answer.'],
      [{ question: 4, options: [0] }, 'That question is not on this card.'],
      [undefined, 'That question is not on this card.'],
    ] as const) {
      const c = r.act('answer', 'p1', ANA, choice as never);
      await c.run();
      assert.deepEqual(c.told, [text]);
    }
    r.broker.expireAll();
    assert.equal((await d).behavior, 'deny');
  });

  it('a question not in claude\'s shape is an ordinary prompt (no card), still never offered a rule', async () => {
    assert.equal(questionCard({ questions: 'which?' }), undefined);
    assert.equal(questionCard({ questions: [] }), undefined);
    assert.equal(questionCard({ questions: [{ question: 'A?', options: [] }] }), undefined);
    assert.equal(questionCard({ questions: [{ question: 'A?', options: [{ label: 'x' }] }, { question: 'A?', options: [{ label: 'y' }] }] }), undefined, 'two questions alike');
    const r = rig();
    const d = r.ask({ requestId: 'x', toolName: 'AskUserQuestion', input: { questions: 'which?' } });
    await r.posted(1);
    const view = r.surface.prompts()[0]!.view;
    assert.equal(view.card, undefined);
    assert.equal(view.rule, undefined);
    r.broker.expireAll();
    await d;
  });
});

describe('plan cards', () => {
  it('Approve allows without updated_input; the card says who approved', async () => {
    const r = rig();
    assert.deepEqual(cardOf(PLAN), { kind: 'plan', shown: true });
    const d = r.ask(PLAN, { card: { kind: 'plan', shown: true, next: 'claude-code' } });
    await r.posted(1);
    assert.deepEqual(r.surface.prompts()[0]!.view.card, { kind: 'plan', shown: true, next: 'claude-code' });
    const bob = r.act('approve', 'p1', BOB);
    await bob.run();
    assert.match(bob.told[0]!, /^Only @ana or an approver/);
    await r.act('approve', 'p1', ANA).run();
    assert.deepEqual(await d, { behavior: 'allow' });
    await waitFor(() => r.surface.prompts()[0]!.view.state === 'allowed', 'approved');
    assert.equal(r.surface.prompts()[0]!.view.how, 'approved');
    const late = r.act('revise', 'p1', ANA);
    await late.run();
    assert.deepEqual(late.told, ['This plan was already approved by @ana.']);
  });

  it('Keep planning opens a feedback form; the feedback is the deny message, word for word', async () => {
    const r = rig();
    const d = r.ask(PLAN);
    await r.posted(1);
    const c = r.act('revise', 'p1', ANA);
    await c.run();
    assert.equal(c.forms[0]?.kind, 'feedback');
    assert.deepEqual(await r.submit('feedback', 'p1', ''), { ok: false, error: 'Write what should change, or close this and press Approve.' });
    assert.deepEqual(await r.submit('feedback', 'p1', 'x'.repeat(2001)), { ok: false, error: 'Keep the feedback under 2000 characters (this has 2001).' });
    assert.deepEqual(await r.submit('reason', 'p1', 'no'), { ok: false, error: 'This form does not belong to this plan.' });
    assert.deepEqual(await r.submit('feedback', 'p1', '  Add tests first, then fix.  '), { ok: true });
    assert.deepEqual(await d, { behavior: 'deny', message: 'Add tests first, then fix.' });
    await waitFor(() => r.surface.prompts()[0]!.view.state === 'denied', 'sent back');
    assert.equal(r.surface.prompts()[0]!.view.reason, 'Add tests first, then fix.');
    assert.equal(r.surface.prompts()[0]!.view.how, 'revised');
  });

  it('a plan with no text says so on its card; a card choice on an ordinary prompt is not available', async () => {
    assert.deepEqual(cardOf({ requestId: 'x', toolName: 'ExitPlanMode', input: {} }), { kind: 'plan', shown: false });
    const r = rig();
    const d = r.ask({ requestId: 'b', toolName: 'Bash', input: { command: 'ls' } });
    await r.posted(1);
    const c = r.act('approve', 'p1', ANA);
    await c.run();
    assert.deepEqual(c.told, ['That choice is not available here.']);
    assert.deepEqual(await r.submit('feedback', 'p1', 'hi'), { ok: false, error: 'This form does not belong to this request.' });
    r.broker.expireAll();
    await d;
  });
});
