/**
 * The words of a permission prompt, one source for Slack, Discord and the local page: the labels
 * of the choices, what an Allow was, whose requests a rule answers, and the line that says what
 * the two rule choices add. Each platform wraps them in its own markup (the rule as code, a
 * person as a mention).
 */
import type { PromptHow } from './chat.js';

/** The choices of a pending prompt (the bridge's PromptAction), in the order they are shown. */
export type PromptChoice = 'allow' | 'allow_thread' | 'allow_thread_all' | 'edit' | 'deny' | 'deny_reason' | 'show_input';

export const CHOICE_LABELS: Readonly<Record<PromptChoice, string>> = {
  allow: 'Allow once',
  allow_thread: 'Allow for this thread',
  allow_thread_all: 'Allow for everyone in this thread',
  edit: 'Edit and allow',
  deny: 'Deny',
  deny_reason: 'Deny with reason',
  show_input: 'Show full input',
};

/** What an Allow was, for a decided prompt: "Allowed for this thread", "Allowed once", … */
export function allowedHow(how: PromptHow | undefined): string {
  switch (how) {
    case 'thread':
      return 'Allowed for this thread';
    case 'thread_all':
      return 'Allowed for everyone in this thread';
    case 'edited':
      return 'Allowed with edited input';
    case 'once':
      return 'Allowed once';
    default:
      return 'Allowed';
  }
}

/** Whether a decided prompt added a rule (and so says which). */
export function addedRule(how: PromptHow | undefined): boolean {
  return how === 'thread' || how === 'thread_all';
}

/**
 * Whose requests the rule answers: " for anyone's requests" (everyone here), " for ana's requests"
 * (`person`: the rule's person as the platform names them, possessive made here), or ''.
 */
export function ruleWhose(how: PromptHow | undefined, person: string | undefined): string {
  if (how === 'thread_all') return " for anyone's requests";
  return person ? ` for ${possessive(person)} requests` : '';
}

/** "your" for the reader themself ("you"), else "ana's". */
function possessive(person: string): string {
  return person === 'you' ? 'your' : `${person}'s`;
}

/**
 * A pending prompt's line about its two rule choices: `code` is the rule as the platform shows
 * code, `person` whose requests "Allow for this thread" covers (as the platform names them).
 */
export function ruleChoicesLine(code: string, person: string | undefined): string {
  return `“${CHOICE_LABELS.allow_thread}” adds ${code}${ruleWhose('thread', person)}, “${CHOICE_LABELS.allow_thread_all}” for anyone's here`;
}
