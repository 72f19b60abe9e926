/**
 * Several replicas: Slack and Discord hand a click, a form submit or a Stop to whichever replica
 * they like, but only the replica holding the agent (its prompt, its turn) can act on it. What
 * this replica does not hold is forwarded over the replica bus; the holder acts, and what the
 * clicker must be told privately, or shown as a form, comes back to be done here, by the replica
 * the platform asked (it alone holds the click's trigger / interaction token).
 */
import type { ReplicaBus } from '../replicas/index.js';
import type { Logger } from '../log.js';
import type { ActionEvent, FormAnswer, FormSubmitEvent, PromptForm } from './types.js';

type Wire =
  | { kind: 'action'; ev: Omit<ActionEvent, 'notifyPrivately' | 'openForm'>; forms: boolean }
  | { kind: 'form'; ev: Omit<FormSubmitEvent, 'notifyPrivately'> };

/** What the holder did that the receiving replica must pass on. */
interface Outcome {
  notes: string[];
  forms: PromptForm[];
  answer?: FormAnswer;
}

export interface LocalHandlers {
  /** Whether this replica holds the prompt or turn with this id. */
  holds(id: string): boolean;
  action(ev: ActionEvent): Promise<void>;
  form(ev: FormSubmitEvent): Promise<FormAnswer>;
}

export interface ActionForwarding {
  /** Handled by another replica (its notes and forms passed on here): true; else handle it here. */
  action(ev: ActionEvent): Promise<boolean>;
  /** The holder's answer, or undefined when no other replica holds the prompt. */
  form(ev: FormSubmitEvent): Promise<FormAnswer | undefined>;
}

export function createActionForwarding(bus: ReplicaBus, local: LocalHandlers, logger: Logger): ActionForwarding {
  bus.serve<Wire, Outcome>(async ({ body, from }) => {
    if (!local.holds(body.ev.id)) return undefined;
    logger.debug({ kind: body.kind, from }, 'handling a click forwarded by another replica');
    const out: Outcome = { notes: [], forms: [] };
    const notifyPrivately = async (text: string): Promise<void> => void out.notes.push(text);
    if (body.kind === 'form') {
      out.answer = await local.form({ ...body.ev, notifyPrivately });
    } else {
      const openForm = body.forms ? async (form: PromptForm): Promise<void> => void out.forms.push(form) : undefined;
      await local.action({ ...body.ev, notifyPrivately, ...(openForm ? { openForm } : {}) });
    }
    return out;
  });

  async function passOn(out: Outcome, notify: (text: string) => Promise<void>, openForm?: (f: PromptForm) => Promise<void>): Promise<void> {
    for (const form of out.forms) await openForm?.(form);
    for (const note of out.notes) await notify(note);
  }

  return {
    async action(ev) {
      if (local.holds(ev.id)) return false;
      const { notifyPrivately, openForm, ...rest } = ev;
      const out = await bus.forward<Wire, Outcome>({ kind: 'action', ev: rest, forms: openForm !== undefined });
      if (!out) return false;
      await passOn(out, notifyPrivately, openForm);
      return true;
    },
    async form(ev) {
      if (local.holds(ev.id)) return undefined;
      const { notifyPrivately, ...rest } = ev;
      const out = await bus.forward<Wire, Outcome>({ kind: 'form', ev: rest });
      if (!out) return undefined;
      await passOn(out, notifyPrivately);
      return out.answer;
    },
  };
}
