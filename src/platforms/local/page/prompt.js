// Permission prompts on the local page: the choices (a rule for the author's requests, or for everyone's), who may decide, a live countdown, the
// outcome (who, what, when), and the dialog for a reason, an edited input or the full input.
import { escapeHtml, renderInline } from './markdown.js';
import { renderCard } from './card.js';
import { clock, countdown, el, expiryLine } from './dom.js';

function tickCountdowns() {
  for (const node of document.querySelectorAll('[data-expires]')) node.textContent = countdown(Number(node.dataset.expires));
}
setInterval(tickCountdowns, 1000);

// The words (labels, what an Allow was, whose requests a rule answers) come with the view, made by
// the bridge from the same source as Slack's and Discord's (prompt-words.ts).
function outcomeText(v) {
  const who = v.decidedBy ? ` by ${v.decidedBy.name ?? v.decidedBy.id}` : '';
  const at = v.decidedAt ? ` at ${clock(v.decidedAt)}` : '';
  switch (v.state) {
    case 'allowed':
      return `${v.words.allowed}${who}${at}${v.words.addedRule && v.rule ? ` · rule ${v.rule}${v.words.ruleWhose}` : ''}`;
    case 'denied':
      return `Denied${who}${at}${v.reason ? `: “${v.reason}”` : ''}`;
    case 'timeout':
      return `Timed out${at}: denied`;
    case 'expired':
      return 'Expired';
    default:
      return v.state;
  }
}

function decidersText(v) {
  const d = v.deciders;
  if (!d) return '';
  const author = d.author.name ?? d.author.id;
  const others = [...d.users, ...d.groups.map((g) => `group ${g}`)];
  if (d.approvals === 'approvers') return `an approver must decide${others.length ? ` (${others.join(', ')})` : ''}; ${author} may only deny`;
  return others.length ? `${author} or an approver (${others.join(', ')}) may decide` : `${author} may decide`;
}

/** The choices in order: action, button class (and test id), whether offered. */
const CHOICES = [
  ['allow', 'allow', () => true],
  ['allow_thread', 'allow-thread', (v) => Boolean(v.rule)],
  ['allow_thread_all', 'allow-thread-all', (v) => Boolean(v.rule)],
  ['edit', 'edit', (v) => Boolean(v.editable)],
  ['deny', 'deny', () => true],
  ['deny_reason', 'deny-reason', () => true],
  ['show_input', 'show-input', (v) => Boolean(v.truncated)],
];

export function renderPrompt(item, act) {
  const v = item.view;
  if (v.card) return renderCard(item, act);
  const node = el('div', { class: 'msg prompt', 'data-testid': 'permission-prompt', 'data-id': item.id, 'data-state': v.state });
  const head = el('div', {}, `<span class="tool">Permission: ${escapeHtml(v.toolName)}</span>`);
  // The description is the agent's markdown (`date` is code): rendered inline, escaped first.
  if (v.description) head.append(el('span', { class: 'description', 'data-testid': 'prompt-description' }, ` — ${renderInline(v.description)}`));
  node.append(head, el('pre', { 'data-testid': 'prompt-input' }, escapeHtml(v.inputPreview)));
  if (v.state === 'pending') {
    const facts = el('div', { class: 'facts', 'data-testid': 'prompt-facts' });
    if (v.rule && v.words.ruleChoices) {
      const [before, after] = v.words.ruleChoices;
      facts.append(el('span', { 'data-testid': 'prompt-rule' }, `${escapeHtml(before)}<code>${escapeHtml(v.rule)}</code>${escapeHtml(after)}`));
      if (v.ruleMeaning) facts.append(el('span', { 'data-testid': 'prompt-rule-meaning' }, `The rule matches: ${escapeHtml(v.ruleMeaning)}`));
    }
    const who = decidersText(v);
    if (who) facts.append(el('span', { 'data-testid': 'prompt-deciders' }, escapeHtml(who)));
    if (v.expiresAt) facts.append(expiryLine('prompt', v.expiresAt));
    node.append(facts);
    const actions = el('div', { class: 'actions' });
    const buttons = [];
    for (const [action, cls, offered] of CHOICES) {
      if (!offered(v)) continue;
      const b = el('button', { type: 'button', class: cls, 'data-testid': `${cls}-button` }, escapeHtml(v.words.labels[action]));
      b.addEventListener('click', () => {
        // a form opens for these; the prompt stays clickable in case it is closed
        if (action === 'edit' || action === 'deny_reason' || action === 'show_input') return act(action, v.promptId);
        for (const x of buttons) x.disabled = true;
        act(action, v.promptId).finally(() => { for (const x of buttons) x.disabled = false; });
      });
      buttons.push(b);
      actions.append(b);
    }
    node.append(actions);
  } else {
    let text = outcomeText(v);
    if (v.note) text += ` — ${v.note}`;
    node.append(el('div', { class: 'outcome', 'data-testid': 'prompt-state', 'data-state': v.state }, escapeHtml(text)));
  }
  return node;
}

/** What a form's submit button says, and how it looks. */
const SUBMIT = { edit: ['Allow', 'allow'], reason: ['Deny', 'deny'], other: ['Send', 'allow'], feedback: ['Send back', 'deny'] };

/** Show a form the bridge asked for; `submit(kind, id, value, question)` resolves to an error text or null. */
export function openForm(form, submit) {
  document.querySelector('dialog.form')?.remove();
  const dialog = el('dialog', { class: 'form', 'data-testid': 'prompt-form', 'data-kind': form.kind });
  const box = el('form', { method: 'dialog' });
  const sub = form.kind === 'other' ? escapeHtml(form.label) : form.kind === 'feedback' ? 'The agent reads your feedback and keeps planning.' : `Permission request: <code>${escapeHtml(form.toolName)}</code>`;
  box.append(el('h2', {}, escapeHtml(form.title)), el('div', { class: 'sub', 'data-testid': 'form-sub' }, sub));
  const error = el('div', { class: 'error', 'data-testid': 'form-error', role: 'alert' });
  const row = el('div', { class: 'buttons' });
  const close = el('button', { type: 'button', 'data-testid': 'form-cancel' }, form.kind === 'view' ? 'Close' : 'Cancel');
  close.addEventListener('click', () => dialog.close());
  if (form.kind === 'view') {
    box.append(el('pre', { 'data-testid': 'form-text' }, escapeHtml(form.text)));
    row.append(close);
  } else {
    const label = el('label', {}, escapeHtml(form.kind === 'other' ? 'Your answer (sent to the agent as it is)' : form.label));
    const input = el('textarea', { 'data-testid': 'form-input', rows: form.kind === 'edit' ? '6' : '3' });
    input.value = form.kind === 'edit' ? form.initial : '';
    label.append(input);
    const [text, cls] = SUBMIT[form.kind] ?? ['Send', 'allow'];
    const ok = el('button', { type: 'submit', class: cls, 'data-testid': 'form-submit' }, text);
    box.addEventListener('submit', async (e) => {
      e.preventDefault();
      ok.disabled = true;
      const problem = await submit(form.kind, form.promptId, input.value, form.question);
      ok.disabled = false;
      if (problem) error.textContent = problem; // the text stays in the box
      else dialog.close();
    });
    box.append(label, error);
    row.append(close, ok);
  }
  box.append(row);
  dialog.append(box);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}
