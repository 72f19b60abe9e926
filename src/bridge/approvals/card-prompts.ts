/**
 * Clicks and forms on a card, at the permission broker (cards.ts says what each does). Who may
 * answer: the author or an approver (approvers.ts), the same for a question and a plan, and the
 * four-eyes rule (`approvals: approvers`) does not bar the author here: answering a question or
 * approving a plan runs nothing (the tools the agent then uses ask as usual). Everyone else is
 * refused privately. A prompt's own choices (Allow, Allow for this thread, Edit…) never act on a
 * card, and a card's never on a prompt.
 */
import type { PermissionPromptView, PromptCard, UserRef } from '../../chat.js';
import { BoundedMap } from '../../bounded-map.js';
import type { Logger } from '../../log.js';
import type { PermissionDecision, PermissionRequest } from '../../protocol/types.js';
import type { DecisionSource } from '../../state/index.js';
import { CARD_ACTIONS, type ActionEvent, type CardAction, type FormAnswer, type FormSubmitEvent } from '../types.js';
import { cardClick, cardForm, type CardStep } from './cards.js';

/** What the card side reads of an open prompt. */
export interface CardPrompt {
  readonly id: string;
  readonly request: PermissionRequest;
  readonly log: Logger;
  view: PermissionPromptView;
}

/** How a card's settlement reads in the broker (its view and the audit trail). */
export interface CardSettlement {
  state: 'allowed' | 'denied';
  source: DecisionSource;
  how: 'answered' | 'skipped' | 'approved' | 'revised';
  decidedBy: UserRef;
  decidedOn: string;
  card: PromptCard;
  reason?: string;
  editedInput?: Record<string, unknown>;
}

export interface CardDeps<P extends CardPrompt> {
  /** The author, an approver or an admin (never barred by approvals: approvers here). */
  mayAnswer(p: P, platform: string, user: UserRef): Promise<boolean>;
  /** Why this person may not, naming who may. */
  refusal(p: P, platform: string, user: UserRef): string;
  /** Still open (another answer may have come in while a group lookup was awaited). */
  isOpen(p: P): boolean;
  closedText(id: string): string;
  settle(p: P, decision: PermissionDecision, s: CardSettlement): void;
  /** Show the prompt's view again (a question answered, others still open). */
  refresh(p: P): void;
}

export function isCardAction(action: string): action is CardAction {
  return (CARD_ACTIONS as readonly string[]).includes(action);
}

const SOURCE: Record<CardSettlement['how'], DecisionSource> = { answered: 'answer', skipped: 'button', approved: 'once', revised: 'reason' };

export function createCardPrompts<P extends CardPrompt>(deps: CardDeps<P>) {
  /** Options picked in a select menu until Submit, per prompt, question and person. */
  const picks = new BoundedMap<string, number[]>(1000);
  const pickKey = (p: P, question: number | undefined, platform: string, user: UserRef) => `${p.id}|${question ?? ''}|${platform}:${user.id}`;

  /** May this person answer, and is the card still open? Else the text they are told. */
  async function refused(p: P, platform: string, user: UserRef, what: string): Promise<string | undefined> {
    if (!(await deps.mayAnswer(p, platform, user))) {
      p.log.info({ platform, user: user.id, what }, 'card answer refused: not the author or an approver');
      return deps.refusal(p, platform, user);
    }
    return deps.isOpen(p) ? undefined : deps.closedText(p.id);
  }

  /** Carry out a step; what the person must be told, if anything. */
  function apply(p: P, step: Exclude<CardStep, { kind: 'form' | 'tell' | 'picked' }>, platform: string, user: UserRef): void {
    if (step.kind === 'update') {
      p.view = { ...p.view, card: step.card };
      p.log.info({ platform, user: user.id }, 'card: a question answered, others still open');
      deps.refresh(p);
      return;
    }
    const answers = step.how === 'answered' ? step.decision.updatedInput : undefined;
    deps.settle(p, step.decision, {
      state: step.state, source: SOURCE[step.how], how: step.how, decidedBy: user, decidedOn: platform, card: step.card,
      ...(step.reason ? { reason: step.reason } : {}), ...(answers ? { editedInput: answers } : {}),
    });
  }

  return {
    /** A click on a card (or a card's choice on a prompt, or a prompt's choice on a card). */
    async action(p: P, ev: ActionEvent): Promise<void> {
      const card = p.view.card;
      if (!card) {
        await ev.notifyPrivately('That choice is not available here.');
        return;
      }
      const no = await refused(p, ev.platform, ev.user, ev.action);
      if (no) {
        await ev.notifyPrivately(no);
        return;
      }
      const key = pickKey(p, ev.choice?.question, ev.platform, ev.user);
      const step = cardClick(p.request, p.id, card, { action: ev.action, ...(ev.choice ? { choice: ev.choice } : {}), user: ev.user, picked: picks.get(key) });
      switch (step.kind) {
        case 'tell':
          await ev.notifyPrivately(step.text);
          return;
        case 'picked':
          picks.set(key, step.options);
          await ev.notifyPrivately(step.text);
          return;
        case 'form':
          if (ev.openForm) await ev.openForm(step.form);
          else await ev.notifyPrivately('This chat cannot show a form here; pick an option instead.');
          return;
        default:
          picks.delete(key);
          apply(p, step, ev.platform, ev.user);
      }
    },

    /** A typed answer or a plan's feedback; a refusal is shown in the form (nothing typed is lost). */
    async form(p: P, ev: FormSubmitEvent): Promise<FormAnswer> {
      const card = p.view.card;
      if (!card) return { ok: false, error: 'This form does not belong to this request.' };
      const no = await refused(p, ev.platform, ev.user, `form-${ev.kind}`);
      if (no) return { ok: false, error: no };
      const step = cardForm(p.request, card, { kind: ev.kind, ...(ev.question !== undefined ? { question: ev.question } : {}), value: ev.value, user: ev.user });
      if (step.kind === 'tell') return { ok: false, error: step.text };
      if (step.kind === 'form' || step.kind === 'picked') return { ok: false, error: 'This form cannot be taken here.' };
      apply(p, step, ev.platform, ev.user);
      return { ok: true };
    },
  };
}
