/**
 * Cards as Discord messages (issue 26), and the modals behind "Other…" and "Keep planning". The
 * words are card-words.ts. Pure functions.
 *
 *   ❓ **Question** · Claude asks: Which color should the button be?
 *   **Color** · Which color should the button be?
 *   > **Red** — Warm and loud
 *   ✅ Blue — chosen by @ana                                   (once answered; its controls go)
 *   -# <@author> or an approver may answer · expires <t:…:R>
 *   [Red] [Blue] [Green] [Other…]                              a single choice: one row per question
 *   [Choose one or more ▾]                                     a multi-select: a select menu (its row), …
 *   [Submit Features] [Skip]                                   … with its Submit in the last row
 * A row holds 5 buttons or one select menu, a message 5 rows: claude's 1-4 questions of 2-4
 * options fit (a single choice of more than 4 options is a select menu too). A plan card:
 * 📋 **Plan ready**, where the plan is (above, in the reply), [Approve] [Keep planning…].
 * Mentions never ping (allowed_mentions parse: []).
 */
import type { CardQuestion, PermissionPromptView, PromptCard } from '../../chat.js';
import type { PromptForm } from '../../bridge/types.js';
import { CARD_LABELS, answeredLine, answerers, cardOutcome, cardTitle, planIntro, planMoved, planNext } from '../../card-words.js';
import type { CustomIds } from './ids.js';
import { DISCORD_MAX_CONTENT, FORM_INPUT_ID, STYLE, oneLine, subtext, type DiscordActionRow, type DiscordButton, type DiscordMessageBody, type DiscordModal, type DiscordSelect } from './render.js';

/** Discord's limits: a button's label 80, a select option's label, value and description 100, a menu's placeholder 150. */
const LABEL = 80;
const OPTION = 100;
const MAX_DECIDERS_SHOWN = 5;
/** Buttons in one row. */
const ROW = 5;
/** The select menu's entry for "Other…". */
export const OTHER_VALUE = 'other';

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
const ts = (ms: number, style: 't' | 'R') => `<t:${Math.floor(ms / 1000)}:${style}>`;
const who = (u: { id: string; name?: string }) => (u.name ? `@${u.name}` : `<@${u.id}>`);

function btn(ids: CustomIds, action: 'answer' | 'other' | 'submit' | 'skip' | 'approve' | 'revise', label: string, style: number, id: string, args: number[] = []): DiscordButton {
  return { type: 2, style, label: cut(label, LABEL), custom_id: ids.encode(action, id, args) };
}

/** A question's lines: its header and text, a single choice's options with their descriptions, its answer. */
function questionLines(q: CardQuestion): string[] {
  const lines = [`${q.header ? `**${oneLine(q.header, 40)}** · ` : ''}${oneLine(q.text, 300)}`];
  const answered = q.answer && answeredLine({ ...q, answer: { ...q.answer, value: oneLine(q.answer.value, 300) } }, who);
  if (answered) return [...lines, `✅ ${answered}`];
  for (const o of q.options) lines.push(`> **${oneLine(o.label, 100)}**${o.description ? ` — ${oneLine(o.description, 150)}` : ''}`);
  return lines;
}

/** A menu of the question's options (and "Other…"), one pick (`answer`) or several (`pick`, sent with Submit). */
function menu(ids: CustomIds, q: CardQuestion, i: number, id: string): DiscordSelect {
  const options = q.options.map((o, n) => ({ label: cut(o.label, OPTION), value: String(n), ...(o.description ? { description: cut(o.description, OPTION) } : {}) }));
  options.push({ label: CARD_LABELS.other, value: OTHER_VALUE, description: 'Write your own answer' });
  return {
    type: 3,
    custom_id: ids.encode(q.multiSelect ? 'pick' : 'answer', id, [i]),
    placeholder: q.multiSelect ? CARD_LABELS.pick : 'Choose one',
    min_values: 1,
    max_values: q.multiSelect ? options.length : 1,
    options,
  };
}

function questionRows(card: Extract<PromptCard, { kind: 'question' }>, ids: CustomIds, id: string): DiscordActionRow[] {
  const rows: DiscordActionRow[] = [];
  const last: DiscordButton[] = [];
  card.questions.forEach((q, i) => {
    if (q.answer) return;
    if (!q.multiSelect && q.options.length < ROW) {
      rows.push({ type: 1, components: [...q.options.map((o, n) => btn(ids, 'answer', o.label, STYLE.primary, id, [i, n])), btn(ids, 'other', CARD_LABELS.other, STYLE.secondary, id, [i])] });
      return;
    }
    rows.push({ type: 1, components: [menu(ids, q, i, id)] });
    if (q.multiSelect) last.push(btn(ids, 'submit', card.questions.length > 1 ? `${CARD_LABELS.submit} ${q.header ?? i + 1}` : CARD_LABELS.submit, STYLE.success, id, [i]));
  });
  last.push(btn(ids, 'skip', CARD_LABELS.skip, STYLE.secondary, id));
  rows.push({ type: 1, components: last });
  return rows;
}

function deciders(view: PermissionPromptView): string | undefined {
  const d = view.deciders;
  if (!d) return undefined;
  const others = [...d.users.map((u) => `<@${u}>`), ...d.groups.map((g) => `<@&${g}>`)];
  const shown = others.length > MAX_DECIDERS_SHOWN ? [...others.slice(0, MAX_DECIDERS_SHOWN), `${others.length - MAX_DECIDERS_SHOWN} more`] : others;
  return answerers(`<@${d.author.id}>`, shown);
}

function outcome(view: PermissionPromptView): string | undefined {
  if (view.state === 'pending') return undefined;
  const icon = { allowed: '✅', denied: view.card?.kind === 'plan' ? '↩️' : '⏭️', timeout: '⌛', expired: '⌛' }[view.state];
  const by = view.decidedBy && (view.state === 'allowed' || view.state === 'denied') ? ` by ${who(view.decidedBy)}` : '';
  const at = view.decidedAt && view.state !== 'expired' ? ` ${ts(view.decidedAt, 't')}` : '';
  const reason = view.reason ? `: “${oneLine(view.reason, 600)}”` : '';
  return `${icon} **${cardOutcome(view)}**${by}${at}${reason}`;
}

export function renderCard(view: PermissionPromptView, card: PromptCard, ids: CustomIds): DiscordMessageBody {
  const parts: string[] = [];
  if (card.kind === 'plan') {
    parts.push(`📋 **${cardTitle(card)}**`, planIntro(card));
  } else {
    parts.push(`❓ **${cardTitle(card)}**${view.description ? ` · ${oneLine(view.description, 200)}` : ''}`);
    for (const q of card.questions) parts.push(...questionLines(q));
  }
  const components: DiscordActionRow[] = [];
  if (view.state === 'pending') {
    const facts = [card.kind === 'plan' ? planNext(card) : '', deciders(view) ?? '', view.expiresAt ? `expires ${ts(view.expiresAt, 'R')}` : ''].filter(Boolean);
    if (facts.length) parts.push(subtext(facts.join(' · ')));
    if (card.kind === 'plan') {
      components.push({ type: 1, components: [btn(ids, 'approve', CARD_LABELS.approve, STYLE.success, view.promptId), btn(ids, 'revise', `${CARD_LABELS.revise}…`, STYLE.secondary, view.promptId)] });
    } else {
      components.push(...questionRows(card, ids, view.promptId));
    }
  }
  const done = outcome(view);
  if (done) parts.push(done);
  if (view.state === 'allowed' && card.kind === 'plan' && card.next) parts.push(subtext(planMoved(card)));
  if (view.note) parts.push(subtext(oneLine(view.note, 200)));
  let content = parts.join('\n');
  if (content.length > DISCORD_MAX_CONTENT) content = `${content.slice(0, DISCORD_MAX_CONTENT - 1)}…`;
  return { content, components, allowed_mentions: { parse: [] } };
}

/** "Other…" and "Keep planning" as a modal (one text input; labels hold 45 characters, the question goes in the placeholder too). */
export function renderCardModal(form: Extract<PromptForm, { kind: 'other' | 'feedback' }>, ids: CustomIds): DiscordModal {
  const other = form.kind === 'other';
  return {
    custom_id: ids.encodeForm(form.kind, form.promptId, other ? form.question : undefined),
    title: cut(form.title, 45),
    components: [{
      type: 18,
      label: cut(other ? form.label : 'What should change in the plan?', 45),
      component: { type: 4, custom_id: FORM_INPUT_ID, style: 2, required: true, max_length: 2000, placeholder: cut(other ? form.label : 'Sent to the agent; it keeps planning', 100) },
    }],
  };
}
