// Cards on the local page (issue 26): the agent's question(s) with their options as buttons (a
// multi-select as checkboxes with Submit), "Other…" for a typed answer, Skip; its plan (shown above,
// in the reply) with Approve and Keep planning. Who answered what, when it expires, how it ended.
// The words come with the view (v.words.card), made by the bridge from card-words.ts.
import { escapeHtml } from './markdown.js';
import { clock, el, expiryLine } from './dom.js';

/** While a click is on its way, the card's controls wait (they come back if the bridge refused). */
function busy(node, promise) {
  const controls = [...node.querySelectorAll('button, input')];
  for (const c of controls) c.disabled = true;
  return Promise.resolve(promise).finally(() => { for (const c of controls) c.disabled = false; });
}

function question(q, i, v, words, act, node) {
  const box = el('div', { class: 'question', 'data-testid': 'card-question', 'data-index': String(i) });
  box.append(el('div', { class: 'q-head' }, `${q.header ? `<span class="chip">${escapeHtml(q.header)}</span> ` : ''}${escapeHtml(q.text)}`));
  const answered = words.answered?.[i];
  if (answered) {
    box.append(el('div', { class: 'answer', 'data-testid': 'card-answer' }, `✓ ${escapeHtml(answered)}`));
    return box;
  }
  if (v.state !== 'pending') return box;
  const choice = (options) => ({ question: i, ...(options ? { options } : {}) });
  const options = el('div', { class: q.multiSelect ? 'options multi' : 'options' });
  q.options.forEach((o, n) => {
    const desc = o.description ? `<span class="desc">${escapeHtml(o.description)}</span>` : '';
    if (q.multiSelect) {
      const label = el('label', { class: 'option', 'data-testid': 'card-option' });
      label.append(el('input', { type: 'checkbox', value: String(n), 'data-testid': 'card-checkbox' }));
      label.append(el('span', {}, `<strong>${escapeHtml(o.label)}</strong>${desc}`));
      options.append(label);
    } else {
      const b = el('button', { type: 'button', class: 'option', 'data-testid': 'card-option' }, `<strong>${escapeHtml(o.label)}</strong>${desc}`);
      b.addEventListener('click', () => busy(node, act('answer', v.promptId, choice([n]))));
      options.append(b);
    }
  });
  box.append(options);
  const row = el('div', { class: 'actions' });
  if (q.multiSelect) {
    const submit = el('button', { type: 'button', class: 'allow', 'data-testid': 'card-submit' }, escapeHtml(words.labels.submit));
    submit.addEventListener('click', () => {
      const ticked = [...box.querySelectorAll('input[type=checkbox]:checked')].map((x) => Number(x.value));
      busy(node, act('submit', v.promptId, choice(ticked)));
    });
    row.append(submit);
  }
  const other = el('button', { type: 'button', 'data-testid': 'card-other' }, escapeHtml(words.labels.other));
  other.addEventListener('click', () => act('other', v.promptId, choice()));
  row.append(other);
  box.append(row);
  return box;
}

export function renderCard(item, act) {
  const v = item.view;
  const card = v.card;
  const words = v.words.card;
  const node = el('div', { class: `msg prompt card ${card.kind}`, 'data-testid': card.kind === 'plan' ? 'plan-card' : 'question-card', 'data-id': item.id, 'data-state': v.state });
  const head = el('div', { class: 'card-title' }, `<span class="tool">${escapeHtml(words.title)}</span>`);
  if (card.kind === 'question' && v.description) head.append(el('span', { class: 'description' }, ` — ${escapeHtml(v.description)}`));
  node.append(head);
  if (card.kind === 'plan') node.append(el('p', { class: 'intro', 'data-testid': 'plan-intro' }, escapeHtml(words.intro)));
  else card.questions.forEach((q, i) => node.append(question(q, i, v, words, act, node)));
  if (v.state === 'pending') {
    const facts = el('div', { class: 'facts', 'data-testid': 'card-facts' });
    if (words.next) facts.append(el('span', { 'data-testid': 'plan-next' }, escapeHtml(words.next)));
    if (words.answerers) facts.append(el('span', { 'data-testid': 'card-answerers' }, escapeHtml(words.answerers)));
    if (v.expiresAt) facts.append(expiryLine('card', v.expiresAt));
    node.append(facts);
    const row = el('div', { class: 'actions' });
    if (card.kind === 'plan') {
      const approve = el('button', { type: 'button', class: 'allow', 'data-testid': 'plan-approve' }, escapeHtml(words.labels.approve));
      approve.addEventListener('click', () => busy(node, act('approve', v.promptId)));
      const revise = el('button', { type: 'button', class: 'deny-reason', 'data-testid': 'plan-revise' }, `${escapeHtml(words.labels.revise)}…`);
      revise.addEventListener('click', () => act('revise', v.promptId));
      row.append(approve, revise);
    } else {
      const skip = el('button', { type: 'button', 'data-testid': 'card-skip' }, escapeHtml(words.labels.skip));
      skip.addEventListener('click', () => busy(node, act('skip', v.promptId)));
      row.append(skip);
    }
    node.append(row);
  } else {
    const by = v.decidedBy && (v.state === 'allowed' || v.state === 'denied') ? ` by ${v.decidedBy.name ?? v.decidedBy.id}` : '';
    const at = v.decidedAt && v.state !== 'expired' ? ` at ${clock(v.decidedAt)}` : '';
    let text = `${words.outcome}${by}${at}${v.reason ? `: “${v.reason}”` : ''}`;
    if (v.note) text += ` — ${v.note}`;
    node.append(el('div', { class: 'outcome', 'data-testid': 'card-state', 'data-state': v.state }, escapeHtml(text)));
    if (v.state === 'allowed' && words.moved) node.append(el('div', { class: 'facts', 'data-testid': 'plan-moved' }, escapeHtml(words.moved)));
  }
  return node;
}
