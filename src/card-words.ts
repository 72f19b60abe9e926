/**
 * The words of a card (a question or a plan, chat.ts PromptCard), one source for Slack, Discord,
 * the local page and the terminal (cli/card-prompt.ts), as prompt-words.ts is for prompts: the
 * tools whose requests are cards, the labels of the choices, what a card says while it waits, and
 * how it reads once decided. Each platform wraps them in its own markup.
 */
import type { CardQuestion, PermissionPromptView, PromptCard } from './chat.js';

/** claude's tools that ask a person (profiles/claude-code/README.md, "Questions and plans on the wire"). */
export const QUESTION_TOOL = 'AskUserQuestion';
export const PLAN_TOOL = 'ExitPlanMode';

/**
 * Requests shown as a card, never as Allow / Deny, and that no thread rule may answer or offer: an
 * Allow answers a question with nothing (claude: "The user did not answer the questions") and
 * approves a plan no one read. Here, not with the cards' behaviour (bridge/approvals/cards.ts), so
 * that `run` and `chat` tell a card from a prompt without loading the bridge.
 */
export function isCardTool(toolName: string): boolean {
  return toolName === QUESTION_TOOL || toolName === PLAN_TOOL;
}

export const CARD_LABELS = {
  other: 'Other…',
  submit: 'Submit',
  skip: 'Skip',
  approve: 'Approve',
  revise: 'Keep planning',
  /** A multi-select's menu before anything is picked (Discord). */
  pick: 'Choose one or more',
} as const;

/** The card's title line: "Question", "2 questions", "Plan ready". */
export function cardTitle(card: PromptCard): string {
  if (card.kind === 'plan') return 'Plan ready';
  return card.questions.length === 1 ? 'Question' : `${card.questions.length} questions`;
}

/** A pending plan card's line about the plan and the two choices. */
export function planIntro(card: Extract<PromptCard, { kind: 'plan' }>): string {
  const where = card.shown ? 'The plan is above.' : 'The agent sent no plan text.';
  return `${where} “${CARD_LABELS.approve}” lets the agent start; “${CARD_LABELS.revise}” sends it back with your feedback.`;
}

/** What an approved plan changes for the thread ('' when nothing). */
export function planNext(card: Extract<PromptCard, { kind: 'plan' }>): string {
  return card.next ? `Once approved, this thread's next messages use ${card.next}.` : '';
}

/** What an approved plan changed for the thread ('' when nothing). */
export function planMoved(card: Extract<PromptCard, { kind: 'plan' }>): string {
  return card.next ? `This thread's next messages use ${card.next}.` : '';
}

/** Who may answer a card, given how the platform names people: "ana or an approver (…) may answer". */
export function answerers(author: string, others: readonly string[]): string {
  return others.length ? `${author} or an approver (${others.join(', ')}) may answer` : `${author} may answer`;
}

/** An answered question: "Blue — chosen by ana", "“Teal” — written by ana". */
export function answeredLine(q: CardQuestion, who: (u: NonNullable<CardQuestion['answer']>['by']) => string): string | undefined {
  if (!q.answer) return undefined;
  return q.answer.typed ? `“${q.answer.value}” — written by ${who(q.answer.by)}` : `${q.answer.value} — chosen by ${who(q.answer.by)}`;
}

/** A decided card's outcome in words (before who and when): "Answered", "Plan approved", … */
export function cardOutcome(view: Pick<PermissionPromptView, 'state' | 'card'>): string {
  const plan = view.card?.kind === 'plan';
  switch (view.state) {
    case 'allowed':
      return plan ? 'Plan approved' : 'Answered';
    case 'denied':
      return plan ? 'Sent back to keep planning' : 'Skipped';
    case 'timeout':
      return plan ? 'Not approved in time' : 'Not answered in time';
    case 'expired':
      return 'Expired';
    default:
      return '';
  }
}
