/**
 * Cards (issue 26): claude's AskUserQuestion and ExitPlanMode reach the bridge as permission
 * requests (profiles/claude-code/README.md, "Questions and plans on the wire") and are shown as a
 * question card or a plan card instead of Allow / Deny. Here: which requests are cards, what a
 * card shows, and what a click or a form makes of it. Pure functions: the broker keeps the card's
 * life (posting, shown, settled), who may answer, and its timeout.
 */
import type { CardQuestion, PermissionPromptView, PlanCard, PromptCard, QuestionCard, UserRef } from '../../chat.js';
import type { PermissionDecision, PermissionRequest } from '../../protocol/types.js';
import type { CardChoice, FormKind, PromptForm } from '../types.js';
import { PLAN_TOOL, QUESTION_TOOL } from '../../card-words.js';


/** What every platform can show: claude asks 1-4 questions of 2-4 options; Slack holds 10 checkboxes. */
const MAX_QUESTIONS = 4;
const MAX_OPTIONS = 10;
/** Longest typed answer ("Other…") and plan feedback passed to the agent. */
const MAX_TYPED_CHARS = 2000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** The questions of an AskUserQuestion input as a card, or undefined when they are not in the shape claude sends. */
export function questionCard(input: Record<string, unknown>): QuestionCard | undefined {
  const raw = input.questions;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_QUESTIONS) return undefined;
  const questions: CardQuestion[] = [];
  for (const q of raw) {
    if (!isObject(q) || !text(q.question) || !Array.isArray(q.options)) return undefined;
    if (q.options.length === 0 || q.options.length > MAX_OPTIONS) return undefined;
    const options = [];
    for (const o of q.options) {
      if (!isObject(o) || !text(o.label)) return undefined;
      options.push({ label: o.label as string, ...(text(o.description) ? { description: o.description as string } : {}) });
    }
    // Answers are keyed by the question's text: two alike could not both be answered.
    if (questions.some((x) => x.text === q.question)) return undefined;
    questions.push({ text: q.question as string, ...(text(q.header) ? { header: q.header as string } : {}), options, multiSelect: q.multiSelect === true });
  }
  return { kind: 'question', questions };
}

/** The plan's markdown (the claude wrapper puts it in `input.plan`), or undefined when none came. */
export function planText(input: Record<string, unknown>): string | undefined {
  return text(input.plan)?.trim();
}

const flat = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The agent's own output already ended with the plan (the claude wrapper takes the text before the call when there is no plan file): not shown twice. */
export function planShownIn(said: string, plan: string): boolean {
  return flat(said).endsWith(flat(plan));
}

/** The card a request shows (undefined: an ordinary prompt; a question not in claude's shape is one too). */
export function cardOf(request: PermissionRequest): PromptCard | undefined {
  if (request.toolName === PLAN_TOOL) return { kind: 'plan', shown: planText(request.input) !== undefined } satisfies PlanCard;
  if (request.toolName === QUESTION_TOOL) return questionCard(request.input);
  return undefined;
}

/** A prompt's pending view as a card shows it: no rule, nothing to edit or unfold. */
export function withCard(view: PermissionPromptView, card: PromptCard | undefined): PermissionPromptView {
  if (!card) return view;
  const { rule: _rule, ruleMeaning: _meaning, ruleFor: _for, truncated: _truncated, ...rest } = view;
  return { ...rest, editable: false, card };
}

/** What a click or a form does to a card. */
export type CardStep =
  /** Told to the clicker privately; nothing changes. */
  | { kind: 'tell'; text: string }
  /** Options picked in a select menu, kept for this person's Submit (and told so). */
  | { kind: 'picked'; options: number[]; text: string }
  | { kind: 'form'; form: PromptForm }
  /** Some questions are answered, some still open: the card shows the new state. */
  | { kind: 'update'; card: QuestionCard }
  /** The agent gets its answer: every question answered, skipped, a plan approved or sent back. */
  | { kind: 'settle'; decision: PermissionDecision; state: 'allowed' | 'denied'; how: 'answered' | 'skipped' | 'approved' | 'revised'; card: PromptCard; reason?: string };

/** A person's choice, as the card sees it. */
export interface CardClick {
  action: string;
  choice?: CardChoice;
  user: UserRef;
  /** What this person picked earlier in a select menu (Discord), for a Submit that carries none. */
  picked?: number[];
}

const mention = (u: UserRef): string => `@${u.name ?? u.id}`;

function openQuestion(card: QuestionCard, choice: CardChoice | undefined): { q: CardQuestion; i: number } | string {
  const i = choice?.question;
  if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= card.questions.length) return 'That question is not on this card.';
  const q = card.questions[i]!;
  if (q.answer) return `This question was already answered by ${mention(q.answer.by)}: ${q.answer.value}`;
  return { q, i };
}

/** The labels of `options` (0-based), in the card's order, or why not. */
function labelsOf(q: CardQuestion, options: readonly number[] | undefined, single: boolean): string[] | string {
  const chosen = [...new Set(options ?? [])];
  if (chosen.length === 0) return 'Pick at least one option first.';
  if (single && chosen.length > 1) return 'This question takes one answer.';
  if (chosen.some((o) => !Number.isInteger(o) || o < 0 || o >= q.options.length)) return 'That option is not on this card.';
  return chosen.sort((a, b) => a - b).map((o) => q.options[o]!.label);
}

/** Answer question `i`; once every question has its answer, the agent hears them all. */
function answer(request: PermissionRequest, card: QuestionCard, i: number, value: string, by: UserRef, typed: boolean): CardStep {
  const questions = card.questions.map((q, n) => (n === i ? { ...q, answer: { value, by, ...(typed ? { typed: true } : {}) } } : q));
  const next: QuestionCard = { kind: 'question', questions };
  if (questions.some((q) => !q.answer)) return { kind: 'update', card: next };
  const answers = Object.fromEntries(questions.map((q) => [q.text, q.answer!.value]));
  // The questions exactly as asked (the wire: {questions, answers}; the claude wrapper passes it on as claude's updatedInput).
  return { kind: 'settle', decision: { behavior: 'allow', updatedInput: { questions: request.input.questions, answers } }, state: 'allowed', how: 'answered', card: next };
}

/** A click on a question card. */
function questionClick(request: PermissionRequest, promptId: string, card: QuestionCard, click: CardClick): CardStep {
  if (click.action === 'skip') {
    return {
      kind: 'settle', state: 'denied', how: 'skipped', card,
      decision: { behavior: 'deny', message: `The user chose not to answer (skipped by ${mention(click.user)}). Go on without these answers, or ask in your reply.` },
    };
  }
  if (!['answer', 'submit', 'pick', 'other'].includes(click.action)) return { kind: 'tell', text: 'This is a question: pick an option, or Other… to write your own answer.' };
  const open = openQuestion(card, click.choice);
  if (typeof open === 'string') return { kind: 'tell', text: open };
  const { q, i } = open;
  switch (click.action) {
    case 'answer': {
      const labels = labelsOf(q, click.choice?.options, true);
      if (typeof labels === 'string') return { kind: 'tell', text: labels };
      return answer(request, card, i, labels[0]!, click.user, false);
    }
    case 'submit': {
      const labels = labelsOf(q, click.choice?.options?.length ? click.choice.options : click.picked, false);
      if (typeof labels === 'string') return { kind: 'tell', text: labels };
      return answer(request, card, i, labels.join(', '), click.user, false);
    }
    case 'pick': {
      const labels = labelsOf(q, click.choice?.options, false);
      if (typeof labels === 'string') return { kind: 'tell', text: labels };
      return { kind: 'picked', options: [...new Set(click.choice!.options!)], text: `Chosen: ${labels.join(', ')}. Press Submit to send ${labels.length === 1 ? 'it' : 'them'}.` };
    }
    default:
      return { kind: 'form', form: { kind: 'other', promptId, toolName: request.toolName, question: i, title: 'Your answer', label: q.text } };
  }
}

/** A click on a plan card. */
function planClick(request: PermissionRequest, promptId: string, card: PlanCard, click: CardClick): CardStep {
  if (click.action === 'approve') return { kind: 'settle', decision: { behavior: 'allow' }, state: 'allowed', how: 'approved', card };
  if (click.action === 'revise') return { kind: 'form', form: { kind: 'feedback', promptId, toolName: request.toolName, title: 'Keep planning', label: 'What should change in the plan? (sent to the agent)' } };
  return { kind: 'tell', text: 'This is a plan: Approve it to start, or Keep planning to send it back with your feedback.' };
}

/** What a click does to a card (the clicker may answer: the broker checked). */
export function cardClick(request: PermissionRequest, promptId: string, card: PromptCard, click: CardClick): CardStep {
  return card.kind === 'question' ? questionClick(request, promptId, card, click) : planClick(request, promptId, card, click);
}

/** What a submitted form does to a card: a typed answer, a plan's feedback (or why it was refused, kept in the form). */
export function cardForm(request: PermissionRequest, card: PromptCard, form: { kind: FormKind; question?: number; value: string; user: UserRef }): CardStep {
  const value = form.value.trim();
  if (card.kind === 'plan') {
    if (form.kind !== 'feedback') return { kind: 'tell', text: 'This form does not belong to this plan.' };
    if (value === '') return { kind: 'tell', text: 'Write what should change, or close this and press Approve.' };
    if (value.length > MAX_TYPED_CHARS) return { kind: 'tell', text: `Keep the feedback under ${MAX_TYPED_CHARS} characters (this has ${value.length}).` };
    return { kind: 'settle', decision: { behavior: 'deny', message: value }, state: 'denied', how: 'revised', reason: value, card };
  }
  if (form.kind !== 'other') return { kind: 'tell', text: 'This form does not belong to this question.' };
  const open = openQuestion(card, form.question === undefined ? undefined : { question: form.question });
  if (typeof open === 'string') return { kind: 'tell', text: open };
  if (value === '') return { kind: 'tell', text: 'Write an answer, or close this and pick an option.' };
  if (value.length > MAX_TYPED_CHARS) return { kind: 'tell', text: `Keep the answer under ${MAX_TYPED_CHARS} characters (this has ${value.length}).` };
  return answer(request, card, open.i, value, form.user, true);
}

/** The timeout of a card, in words: what the agent is told and what the card says. */
export function cardTimeout(card: PromptCard, after: string): { message: string; note: string } {
  if (card.kind === 'plan') {
    return { message: `No one approved the plan within ${after}: it is not approved. Do not start on it; the user can answer in a new message.`, note: `no one answered within ${after}: the plan was not approved` };
  }
  return { message: `No one answered within ${after}: the question expired unanswered. Go on without the answer, or ask in your reply.`, note: `no one answered within ${after}: the agent was told so` };
}

/** What a late click on a card that is no longer open is told. */
export function closedCardText(kind: PromptCard['kind'], state: string, by: UserRef | undefined): string {
  const who = by ? mention(by) : 'someone';
  if (kind === 'question') {
    if (state === 'allowed') return `This question was already answered by ${who}.`;
    if (state === 'denied') return `This question was skipped by ${who}.`;
    if (state === 'timeout') return 'This question timed out unanswered; the agent was told so.';
    return 'This question has expired; nothing was sent.';
  }
  if (state === 'allowed') return `This plan was already approved by ${who}.`;
  if (state === 'denied') return `This plan was already sent back by ${who}.`;
  if (state === 'timeout') return 'This plan timed out without an approval; the agent was told so.';
  return 'This plan has expired; nothing was sent.';
}
