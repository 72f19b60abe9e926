/**
 * An agent's question or plan (claude's AskUserQuestion, ExitPlanMode: chat.ts PromptCard)
 * answered on the terminal in `run` and `chat`. A question's options are numbered: one number
 * answers a single choice, several (`1 3`, `1,3`) a multi-select, `o` writes one's own answer
 * (Other…), an empty line or the end of input (Ctrl-D) skips the card. A plan is printed (unless
 * the agent's output just showed it), then `a` approves and `k` sends it back with the feedback
 * typed next; an empty line or Ctrl-D leaves it unapproved. What each answer sends is the bridge's
 * own (bridge/approvals cards.ts, cardClick and cardForm), so the agent gets the permission_response
 * a card on Slack, Discord or the local page sends; the words are card-words.ts. Loaded only when an
 * agent asks (it brings the bridge's approvals with it).
 */
import { CARD_LABELS, answeredLine, cardOutcome, cardTitle, planIntro } from '../card-words.js';
import type { CardQuestion, PromptCard, QuestionCard, UserRef } from '../chat.js';
import { cardClick, cardForm, cardOf, planShownIn, planText, type CardStep } from '../bridge/approvals/index.js';
import type { PermissionDecision, PermissionRequest } from '../protocol/types.js';
import { printable, type CliIo } from './io.js';
import { withLines, type AskOptions, type LineQueue } from './line-queue.js';

export interface CardAskOptions extends AskOptions {
  holdClock?: () => () => void;
  said?: string;
}

/** The decision the agent gets; 'turn-ended' (nothing to decide any more); 'not-a-card' (a question not in claude's shape: ask it as a y/N). */
export type CardAsked = PermissionDecision | 'turn-ended' | 'not-a-card';

/** Nothing typed, or the input ended: a question is skipped, a plan left unapproved. */
const NO_ANSWER = '';

/** What a plan left unanswered tells the agent (a card's plan has no Skip: its timeout says the like, cards.ts cardTimeout). */
const PLAN_LEFT = 'The user did not approve the plan (no answer on the terminal): it is not approved. Do not start on it; the user can answer in a new message.';

export async function askCard(io: CliIo, request: PermissionRequest, opts: CardAskOptions): Promise<CardAsked> {
  const card = cardOf(request);
  if (!card) return 'not-a-card';
  if (opts.signal?.aborted) return 'turn-ended';
  // Who answers: the terminal's user, as the skip message names them ("skipped by @ana").
  const user: UserRef = { id: 'terminal', name: io.env.USER || io.env.LOGNAME || 'terminal' };
  // A person is reading: the turn's timeout bounds the agent's work, not the answer (as in the bridge).
  const release = opts.holdClock?.();
  try {
    return await withLines(io.stdin, opts, async (lines) => {
      const ask = async (prompt: string): Promise<string | null> => {
        opts.out.write(prompt);
        const line = await lines.next(opts.signal);
        return line ?? (opts.signal?.aborted ? null : NO_ANSWER);
      };
      const t = { out: (s: string) => opts.out.write(s), ask, user, request };
      return card.kind === 'plan' ? plan(t, card, opts.said ?? '') : questions(t, card);
    });
  } finally {
    release?.();
  }
}

interface Terminal {
  out(text: string): void;
  /** The typed line ('' for an empty one or the end of input); null: the turn ended first. */
  ask(prompt: string): Promise<string | null>;
  user: UserRef;
  request: PermissionRequest;
}

const you = () => 'you';

function showQuestion(t: Terminal, card: QuestionCard, i: number): void {
  const q = card.questions[i]!;
  const n = card.questions.length;
  const title = n === 1 ? cardTitle(card) : `${cardTitle({ kind: 'question', questions: [q] })} ${i + 1} of ${n}`;
  t.out(`\n${title}${q.header ? ` · ${printable(q.header)}` : ''}\n${printable(q.text)}\n`);
  q.options.forEach((o, k) => t.out(`  ${k + 1}. ${printable(o.label)}${o.description ? ` — ${printable(o.description)}` : ''}\n`));
  t.out(`  o. ${CARD_LABELS.other}\n`);
}

function choicePrompt(q: CardQuestion): string {
  const range = `1-${q.options.length}`;
  const pick = q.multiSelect ? `Choose one or more (${range}, e.g. 1 3)` : `Choose one (${range})`;
  return `${pick}, o to write your own, Enter to ${CARD_LABELS.skip.toLowerCase()}: `;
}

/** Numbers as typed (1-based, spaces or commas between) as the card's 0-based options; undefined when not numbers. */
function typedOptions(line: string): number[] | undefined {
  return /^\d+(?:[\s,]+\d+)*$/.test(line) ? line.split(/[\s,]+/).map((n) => Number(n) - 1) : undefined;
}

/** Each open question in turn; the agent hears the answers once the last has one, or the skip. */
async function questions(t: Terminal, first: QuestionCard): Promise<CardAsked> {
  let card = first;
  for (;;) {
    const i = card.questions.findIndex((q) => !q.answer);
    showQuestion(t, card, i);
    const step = await answerQuestion(t, card, i);
    if (step === null) return 'turn-ended';
    const answered = step.card.kind === 'question' ? answeredLine(step.card.questions[i]!, you) : undefined;
    // "Blue — chosen by you", or the card's outcome when skipped ("Skipped").
    t.out(`${printable(answered ?? cardOutcome({ state: step.kind === 'settle' ? step.state : 'pending', card: step.card }))}\n`);
    if (step.kind === 'settle') return step.decision;
    card = step.card;
  }
}

/** Ask question `i` until the answer is one the card takes: the card's next state, or its settlement. */
async function answerQuestion(t: Terminal, card: QuestionCard, i: number): Promise<Extract<CardStep, { kind: 'update' | 'settle' }> | null> {
  const q = card.questions[i]!;
  const click = (action: string, options?: number[]) => cardClick(t.request, 'terminal', card, { action, user: t.user, choice: { question: i, ...(options ? { options } : {}) } });
  for (;;) {
    const line = await t.ask(choicePrompt(q));
    if (line === null) return null;
    const typed = line.trim();
    let step: CardStep;
    if (typed === NO_ANSWER) step = click('skip');
    else if (/^o(ther)?$/i.test(typed)) {
      const form = click('other');
      if (form.kind !== 'form') step = form;
      else {
        const value = await t.ask(`${form.form.title}: `);
        if (value === null) return null;
        if (value.trim() === '') {
          t.out('Nothing written: choose again.\n');
          continue;
        }
        step = cardForm(t.request, card, { kind: 'other', question: i, value, user: t.user });
      }
    } else {
      const options = typedOptions(typed);
      step = options ? click(q.multiSelect ? 'submit' : 'answer', options) : { kind: 'tell', text: `Type the number of an option, o to write your own, or Enter to ${CARD_LABELS.skip.toLowerCase()}.` };
    }
    if (step.kind === 'update' || step.kind === 'settle') return step;
    if (step.kind === 'tell') t.out(`${step.text}\n`);
  }
}

/** A plan: shown, then Approve, Keep planning with feedback, or left unapproved. */
async function plan(t: Terminal, card: Extract<PromptCard, { kind: 'plan' }>, said: string): Promise<CardAsked> {
  const text = planText(t.request.input);
  t.out(`\n${cardTitle(card)}\n`);
  // The agent's own text, printed as its output is (not made one line).
  if (text && !planShownIn(said, text)) t.out(`${text}\n\n`);
  t.out(`${planIntro(card)}\n  a. ${CARD_LABELS.approve}\n  k. ${CARD_LABELS.revise}\n`);
  const click = (action: string) => cardClick(t.request, 'terminal', card, { action, user: t.user });
  for (;;) {
    const line = await t.ask(`a to ${CARD_LABELS.approve.toLowerCase()}, k to ${CARD_LABELS.revise.toLowerCase()}, Enter to leave it unapproved: `);
    if (line === null) return 'turn-ended';
    const typed = line.trim().toLowerCase();
    if (typed === NO_ANSWER) {
      t.out('Not approved\n');
      return { behavior: 'deny', message: PLAN_LEFT };
    }
    const step = typed === 'a' || typed === 'approve' ? click('approve') : typed === 'k' || typed === 'keep planning' ? click('revise') : { kind: 'tell' as const, text: 'Type a or k, or Enter to leave the plan unapproved.' };
    if (step.kind === 'settle') {
      t.out(`${cardOutcome({ state: step.state, card: step.card })}\n`);
      return step.decision;
    }
    if (step.kind === 'tell') t.out(`${step.text}\n`);
    if (step.kind !== 'form' || step.form.kind !== 'feedback') continue;
    const settled = await feedback(t, card, step.form.label);
    if (settled === null) return 'turn-ended';
    if (settled) return settled;
  }
}

/** Keep planning's feedback: the deny message the agent reads, word for word; empty goes back to the choice (undefined). */
async function feedback(t: Terminal, card: PromptCard, label: string): Promise<PermissionDecision | null | undefined> {
  for (;;) {
    const value = await t.ask(`${label}\n> `);
    if (value === null) return null;
    if (value.trim() === '') return undefined;
    const step = cardForm(t.request, card, { kind: 'feedback', value, user: t.user });
    if (step.kind === 'settle') {
      t.out(`${cardOutcome({ state: step.state, card: step.card })}\n`);
      return step.decision;
    }
    if (step.kind === 'tell') t.out(`${step.text}\n`);
  }
}
