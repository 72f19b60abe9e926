/**
 * Approvals: an agent's permission request answered. The broker (permission-broker.ts) answers
 * from a thread rule (thread-rule-answers.ts) or shows a prompt through delivery and takes the
 * first valid decision; who may decide is approvers.ts; what a rule matches is permission-rules.ts
 * (byte-exact commands, prefix rules on one simple command, shell-words.ts; path rules inside the
 * workspace, workspace-path.ts); the Deny-with-reason and Edit-and-allow forms are
 * prompt-forms.ts, and what a prompt shows of the input is input-preview.ts. Questions and plans
 * (claude's AskUserQuestion and ExitPlanMode) are cards instead of Allow / Deny: cards.ts says what
 * they show and what each answer sends, card-prompts.ts takes their clicks and forms (and the terminal's answers in `run` and `chat`,
 * cli/card-prompt.ts, go through cards.ts too). The broker decides; it never calls a platform.
 */
export { mayStop, mention, policyFor, refusalText } from './approvers.js';
export { createPermissionBroker, type PermissionBroker } from './permission-broker.js';
export { cardClick, cardForm, cardOf, planShownIn, planText, type CardStep } from './cards.js';
export { describeRule, scopeText } from './permission-rules.js';
