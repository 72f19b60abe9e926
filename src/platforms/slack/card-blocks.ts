/**
 * Cards in Block Kit (issue 26): a question card and a plan card, and the modals behind "Other…"
 * and "Keep planning". The words are card-words.ts. Every button's value is the card's opaque id
 * (the marker recovery looks for); which question and option a click means is in its action_id,
 * so a click needs nothing from memory (it may reach another replica).
 *
 * A question card, per question:
 *   section   *Color* · Which color should the button be?   (single choice: • *Red* — Warm and loud, …)
 *   actions   [Red] [Blue] [Green] [Other…]                  single choice: tb_answer_<q>_<o>, tb_other_<q>
 *             (checkboxes, each with its description) [Submit] [Other…]   multi-select: tb_pick_<q>, tb_submit_<q>
 *   context   ✅ Blue — chosen by @ana                       once answered (the buttons go)
 * then:
 *   context   @ana or an approver may answer · expires 14:05
 *   actions   [Skip]
 * A plan card: 📋 Plan ready, where the plan is (above, in the reply), what an approval changes,
 * [Approve] [Keep planning]. Decided: the buttons go, a context line says what, who and when.
 */
import type { CardQuestion, PermissionPromptView, PromptCard } from '../../chat.js';
import type { types } from '@slack/bolt';
import type { CardAction, CardChoice, PromptForm } from '../../bridge/types.js';
import { CARD_LABELS, answeredLine, answerers, cardOutcome, cardTitle, planIntro, planMoved, planNext } from '../../card-words.js';
import { FALLBACK_TEXT_LIMIT, SECTION_TEXT_LIMIT, escapeMrkdwn, plainCut, type RenderedMessage } from './blocks.js';

type Block = types.KnownBlock;

/** Slack's limits: button and option text 75, an option's description 75, 10 checkboxes. */
const BUTTON_TEXT = 75;
const MAX_DECIDERS_SHOWN = 5;

/** action_ids of a card's controls: the question and option are in the id, the card's id in the value. */
export const CARD_ACTION = /^tb_(answer)_(\d+)_(\d+)$|^tb_(pick|submit|other)_(\d+)$|^tb_(skip|approve|revise)$/;

/** A card control's action_id -> the click it means (undefined: not a card control). */
export function parseCardActionId(actionId: string): { action: CardAction; choice?: CardChoice } | undefined {
  const m = CARD_ACTION.exec(actionId);
  if (!m) return undefined;
  if (m[1]) return { action: 'answer', choice: { question: Number(m[2]), options: [Number(m[3])] } };
  if (m[4]) return { action: m[4] as CardAction, choice: { question: Number(m[5]) } };
  return { action: m[6] as CardAction };
}

function button(actionId: string, text: string, promptId: string, style?: 'primary' | 'danger'): types.Button {
  return { type: 'button', action_id: actionId, text: { type: 'plain_text', text: plainCut(text, BUTTON_TEXT) }, value: promptId, ...(style ? { style } : {}) };
}

const ctx = (text: string): Block => ({ type: 'context', elements: [{ type: 'mrkdwn', text: plainCut(text, SECTION_TEXT_LIMIT) }] });
const who = (u: { id: string }) => `<@${u.id}>`;

function questionBlocks(q: CardQuestion, i: number, view: PermissionPromptView): Block[] {
  const head = `${q.header ? `*${escapeMrkdwn(q.header)}* · ` : ''}${escapeMrkdwn(q.text)}`;
  const list = q.multiSelect ? '' : `\n${q.options.map((o) => `• *${escapeMrkdwn(o.label)}*${o.description ? ` — ${escapeMrkdwn(o.description)}` : ''}`).join('\n')}`;
  const blocks: Block[] = [{ type: 'section', text: { type: 'mrkdwn', text: plainCut(head + list, SECTION_TEXT_LIMIT) } }];
  const answered = q.answer && answeredLine({ ...q, answer: { ...q.answer, value: escapeMrkdwn(plainCut(q.answer.value, 2_000)) } }, who);
  if (answered) return [...blocks, ctx(`:white_check_mark: ${answered}`)];
  if (view.state !== 'pending') return blocks;
  const id = view.promptId;
  const other = button(`tb_other_${i}`, CARD_LABELS.other, id);
  if (!q.multiSelect) {
    return [...blocks, { type: 'actions', block_id: `tb_q_${i}`, elements: [...q.options.map((o, n) => button(`tb_answer_${i}_${n}`, o.label, id)), other] }];
  }
  const boxes: types.Checkboxes = {
    type: 'checkboxes',
    action_id: `tb_pick_${i}`,
    options: q.options.map((o, n) => ({
      text: { type: 'plain_text', text: plainCut(o.label, BUTTON_TEXT) },
      value: String(n),
      ...(o.description ? { description: { type: 'plain_text', text: plainCut(o.description, BUTTON_TEXT) } } : {}),
    })),
  };
  return [...blocks, { type: 'actions', block_id: `tb_q_${i}`, elements: [boxes, button(`tb_submit_${i}`, CARD_LABELS.submit, id, 'primary'), other] }];
}

function deciders(view: PermissionPromptView): string | undefined {
  const d = view.deciders;
  if (!d) return undefined;
  const others = [...d.users.map((u) => `<@${u}>`), ...d.groups.map((g) => `<!subteam^${g}>`)];
  const shown = others.length > MAX_DECIDERS_SHOWN ? [...others.slice(0, MAX_DECIDERS_SHOWN), `${others.length - MAX_DECIDERS_SHOWN} more`] : others;
  return answerers(`<@${d.author.id}>`, shown);
}

function outcome(view: PermissionPromptView, at: (ms: number) => string): string | undefined {
  if (view.state === 'pending') return undefined;
  const icon = { allowed: ':white_check_mark:', denied: view.card?.kind === 'plan' ? ':leftwards_arrow_with_hook:' : ':fast_forward:', timeout: ':hourglass:', expired: ':hourglass:' }[view.state];
  const by = view.decidedBy && (view.state === 'allowed' || view.state === 'denied') ? ` by <@${view.decidedBy.id}>` : '';
  const when = view.decidedAt && view.state !== 'expired' ? ` at ${at(view.decidedAt)}` : '';
  const reason = view.reason ? `: “${escapeMrkdwn(plainCut(view.reason, 1500))}”` : '';
  const note = view.note ? ` - ${escapeMrkdwn(view.note)}` : '';
  return `${icon} ${cardOutcome(view)}${by}${when}${reason}${note}`;
}

/** A card view -> blocks. `at` writes a time as Slack shows it (prompt-blocks.ts slackTime). */
export function renderCard(view: PermissionPromptView, card: PromptCard, at: (ms: number) => string): RenderedMessage {
  const blocks: Block[] = [];
  const title = card.kind === 'plan' ? `:clipboard: *${cardTitle(card)}*` : `:question: *${cardTitle(card)}*${view.description ? ` · ${escapeMrkdwn(plainCut(view.description, 500))}` : ''}`;
  // The notification text too: what the agent wrote is escaped there as in the blocks (it may spell a mention).
  let fallback = card.kind === 'plan' ? 'Plan ready' : `Question: ${card.questions.map((q) => escapeMrkdwn(q.text)).join(' / ')}`;
  if (card.kind === 'plan') {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `${title}\n${planIntro(card)}` } });
  } else {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: plainCut(title, SECTION_TEXT_LIMIT) } });
    card.questions.forEach((q, i) => blocks.push(...questionBlocks(q, i, view)));
  }
  if (view.state === 'pending') {
    const facts = [card.kind === 'plan' ? planNext(card) : '', deciders(view) ?? '', view.expiresAt ? `expires ${at(view.expiresAt)}` : ''].filter(Boolean);
    if (facts.length) blocks.push(ctx(facts.join(' · ')));
    const id = view.promptId;
    blocks.push({
      type: 'actions', block_id: 'tb_card',
      elements: card.kind === 'plan' ? [button('tb_approve', CARD_LABELS.approve, id, 'primary'), button('tb_revise', `${CARD_LABELS.revise}…`, id)] : [button('tb_skip', CARD_LABELS.skip, id)],
    });
    fallback += ' (waiting for an answer)';
  }
  const done = outcome(view, at);
  if (done) {
    const moved = view.state === 'allowed' && card.kind === 'plan' ? planMoved(card) : '';
    blocks.push(ctx(moved ? `${done} · ${moved}` : done));
    fallback += ` - ${cardOutcome(view)}`;
  }
  return { text: plainCut(fallback, FALLBACK_TEXT_LIMIT), blocks };
}

/** "Other…" and "Keep planning" as modals: one text input, the question or what the feedback is for above it; `meta` says where the answer goes. */
export function renderCardForm(form: Extract<PromptForm, { kind: 'other' | 'feedback' }>, meta: string, ids: { callback: string; block: string; action: string }): types.ModalView {
  const head = form.kind === 'other' ? `:question: ${escapeMrkdwn(plainCut(form.label, 2_900))}` : ':clipboard: The agent reads your feedback and keeps planning.';
  return {
    type: 'modal',
    callback_id: ids.callback,
    private_metadata: meta,
    title: { type: 'plain_text', text: plainCut(form.title, 24) },
    submit: { type: 'plain_text', text: form.kind === 'other' ? 'Send' : 'Send back' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: head } },
      {
        type: 'input', block_id: ids.block,
        label: { type: 'plain_text', text: form.kind === 'other' ? 'Your answer (sent to the agent as it is)' : plainCut(form.label, 150) },
        element: { type: 'plain_text_input', action_id: ids.action, multiline: true, max_length: 2000 },
      },
    ],
  };
}
