/**
 * Permission prompts in Block Kit, and the modals behind "Deny with a reason", "Edit and allow"
 * and "Show full input". Buttons carry the opaque prompt id, never the input; a modal carries the
 * prompt id, the form kind and where to answer in `private_metadata` (a click may reach another
 * replica than the one that posted, so nothing lives only in memory).
 *
 * Layout of a pending prompt:
 *   section   🔒 Permission request: `Bash` + description
 *   section   ```the command or JSON``` (folded at 2,500 characters)
 *   context   “Allow for this thread” adds `Bash(npm test:*)` for <@author>'s requests,
 *             “Allow for everyone in this thread” for anyone's here: <what the rule matches>
 *             (the words: prompt-words.ts, shared with Discord and the local page)
 *   context   who may decide · expires at <time>
 *   actions   [Allow once] [Allow for this thread] [Allow for everyone in this thread] [Edit and allow] [Deny] [Deny with reason] [Show full input]
 * Decided: the buttons go, a context line says who decided what and when.
 */
import type { PermissionPromptView } from '../../chat.js';
import type { types } from '@slack/bolt';
import { CHOICE_LABELS, addedRule, allowedHow, ruleChoicesLine, ruleWhose } from '../../prompt-words.js';
import type { FormKind, PromptAction, PromptForm } from '../../bridge/types.js';
import { FALLBACK_TEXT_LIMIT, SECTION_TEXT_LIMIT, escapeMrkdwn, plainCut, type RenderedMessage } from './blocks.js';
import { renderCard, renderCardForm } from './card-blocks.js';

type Block = types.KnownBlock;

export const PROMPT_ACTION_IDS: Record<PromptAction, string> = {
  allow: 'tb_allow',
  allow_thread: 'tb_allow_thread',
  allow_thread_all: 'tb_allow_thread_all',
  edit: 'tb_edit',
  deny: 'tb_deny',
  deny_reason: 'tb_deny_reason',
  show_input: 'tb_show_input',
};
/** callback_id of the reason / edit modals. */
export const FORM_CALLBACK = 'tb_form';
/** block_id / action_id of the modal's one text input. */
export const FORM_BLOCK = 'tb_value';
export const FORM_INPUT = 'value';

const MAX_DECIDERS_SHOWN = 5;

/** Keep a code block intact: no ``` inside, escaped, and the whole section under `max` chars. */
function codeBlock(body: string, max: number): string {
  const escaped = escapeMrkdwn(body.replace(/```/g, '`\u200b``'));
  const room = max - 8;
  const shown = escaped.length <= room
    ? escaped
    : `${escaped.slice(0, room - 16).replace(/&[a-z]{0,3}$/, '')}\n… (truncated)`;
  return '```\n' + shown + '\n```';
}

/** Slack shows `<!date^…>` in each reader's own time zone; the fallback is UTC. */
function slackTime(ms: number, format = '{time}'): string {
  const iso = new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
  return `<!date^${Math.floor(ms / 1000)}^${format}|${iso} UTC>`;
}

function deciders(view: PermissionPromptView): string | undefined {
  const d = view.deciders;
  if (!d) return undefined;
  const who = [...d.users.map((u) => `<@${u}>`), ...d.groups.map((g) => `<!subteam^${g}>`)];
  const shown = who.slice(0, MAX_DECIDERS_SHOWN).join(', ');
  const more = who.length > MAX_DECIDERS_SHOWN ? ` and ${who.length - MAX_DECIDERS_SHOWN} more` : '';
  if (d.approvals === 'approvers') return `an approver must decide${who.length ? ` (${shown}${more})` : ''}; <@${d.author.id}> may only deny`;
  return who.length ? `<@${d.author.id}> or an approver (${shown}${more}) may decide` : `<@${d.author.id}> may decide`;
}

function button(action: PromptAction, promptId: string, style?: 'primary' | 'danger'): types.Button {
  return { type: 'button', action_id: PROMPT_ACTION_IDS[action], text: { type: 'plain_text', text: CHOICE_LABELS[action] }, value: promptId, ...(style ? { style } : {}) };
}

/** What the two rule choices add, for whom, and what the rule matches. */
function ruleFacts(view: PermissionPromptView): string | undefined {
  if (!view.rule) return undefined;
  const meaning = view.ruleMeaning ? `: ${escapeMrkdwn(plainCut(view.ruleMeaning, 600))}` : '';
  return ruleChoicesLine(`\`${escapeMrkdwn(plainCut(view.rule, 300))}\``, view.ruleFor ? `<@${view.ruleFor.id}>` : undefined) + meaning;
}

function outcomeLine(view: PermissionPromptView): { mrkdwn: string; plain: string } | undefined {
  const u = view.decidedBy;
  const by = u ? `<@${u.id}>` : 'someone';
  const byPlain = u ? `@${u.name ?? u.id}` : 'someone';
  const at = view.decidedAt ? ` at ${slackTime(view.decidedAt)}` : '';
  switch (view.state) {
    case 'allowed': {
      const what = allowedHow(view.how);
      const whose = ruleWhose(view.how, view.ruleFor ? `<@${view.ruleFor.id}>` : undefined);
      const rule = addedRule(view.how) && view.rule ? ` · rule \`${escapeMrkdwn(view.rule)}\`${whose}` : '';
      return { mrkdwn: `:white_check_mark: ${what} by ${by}${at}${rule}`, plain: `${what.replace(' once', '')} by ${byPlain}` };
    }
    case 'denied': {
      const reason = view.reason ? `: “${escapeMrkdwn(plainCut(view.reason, 500))}”` : '';
      return { mrkdwn: `:no_entry_sign: Denied by ${by}${at}${reason}`, plain: `Denied by ${byPlain}` };
    }
    case 'timeout':
      return { mrkdwn: `:hourglass: Timed out - denied${at}`, plain: 'Timed out' };
    case 'expired':
      return { mrkdwn: ':hourglass: Expired', plain: 'Expired' };
    default:
      return undefined;
  }
}

export function renderPrompt(view: PermissionPromptView): RenderedMessage {
  if (view.card) return renderCard(view, view.card, slackTime);
  const title = `:lock: *Permission request:* \`${escapeMrkdwn(plainCut(view.toolName, 200))}\``;
  const desc = view.description ? `\n${escapeMrkdwn(plainCut(view.description, 1_000))}` : '';
  const blocks: Block[] = [{ type: 'section', text: { type: 'mrkdwn', text: plainCut(title + desc, SECTION_TEXT_LIMIT) } }];
  if (view.inputPreview) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: codeBlock(view.inputPreview, SECTION_TEXT_LIMIT) } });
  }
  // The notification text too: the tool's name is the agent's (it may spell a mention).
  let fallback = `Permission request: ${escapeMrkdwn(view.toolName)}`;
  if (view.state === 'pending') {
    const rule = ruleFacts(view);
    if (rule) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: plainCut(rule, SECTION_TEXT_LIMIT) }] });
    const facts: string[] = [];
    const who = deciders(view);
    if (who) facts.push(who);
    if (view.expiresAt) facts.push(`expires ${slackTime(view.expiresAt)}`);
    if (facts.length) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: plainCut(facts.join(' · '), SECTION_TEXT_LIMIT) }] });
    const id = view.promptId;
    const elements: types.Button[] = [button('allow', id, 'primary')];
    if (view.rule) elements.push(button('allow_thread', id), button('allow_thread_all', id));
    if (view.editable) elements.push(button('edit', id));
    elements.push(button('deny', id, 'danger'), button('deny_reason', id));
    // folded by the core, or by the section's 3,000-character limit after escaping
    if (view.truncated || escapeMrkdwn(view.inputPreview).length > SECTION_TEXT_LIMIT - 8) elements.push(button('show_input', id));
    blocks.push({ type: 'actions', block_id: 'tb_prompt', elements });
    fallback += ' (waiting for a decision)';
  }
  let outcome = outcomeLine(view);
  if (outcome) fallback += ` - ${outcome.plain}`;
  if (view.note) {
    outcome = { mrkdwn: outcome ? `${outcome.mrkdwn} - ${escapeMrkdwn(view.note)}` : escapeMrkdwn(view.note), plain: view.note };
    fallback += ` (${escapeMrkdwn(view.note)})`;
  }
  if (outcome) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: plainCut(outcome.mrkdwn, SECTION_TEXT_LIMIT) }] });
  return { text: plainCut(fallback, FALLBACK_TEXT_LIMIT), blocks };
}

/** Where a form's answer goes, kept in the modal itself. */
export interface FormMetadata {
  /** promptId */
  p: string;
  k: FormKind;
  /** `other`: the question the typed answer is for. */
  q?: number;
  /** channel and thread of the prompt, for a private answer. */
  c?: string;
  t?: string;
}

/** Slack's plain_text_input holds at most 3,000 characters. */
const SLACK_INPUT_MAX = 3000;
const MAX_VIEW_BLOCKS = 60;

/** A PromptForm -> a modal view for views.open. */
export function renderForm(form: PromptForm, where: { channel?: string; thread?: string }): types.ModalView {
  const head: Block = { type: 'context', elements: [{ type: 'mrkdwn', text: `:lock: Permission request: \`${escapeMrkdwn(plainCut(form.toolName, 150))}\`` }] };
  if (form.kind === 'view') {
    const chunks: Block[] = [];
    for (let i = 0; i < form.text.length && chunks.length < MAX_VIEW_BLOCKS; i += 2_900) {
      chunks.push({ type: 'section', text: { type: 'mrkdwn', text: codeBlock(form.text.slice(i, i + 2_900), SECTION_TEXT_LIMIT) } });
    }
    if (form.text.length > MAX_VIEW_BLOCKS * 2_900) chunks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `… ${form.text.length - MAX_VIEW_BLOCKS * 2_900} more characters not shown` }] });
    return { type: 'modal', title: { type: 'plain_text', text: form.title }, close: { type: 'plain_text', text: 'Close' }, blocks: [head, ...chunks] };
  }
  const meta: FormMetadata = {
    p: form.promptId, k: form.kind, ...(form.kind === 'other' ? { q: form.question } : {}), ...(where.channel ? { c: where.channel } : {}), ...(where.thread ? { t: where.thread } : {}),
  };
  if (form.kind === 'other' || form.kind === 'feedback') return renderCardForm(form, JSON.stringify(meta), { callback: FORM_CALLBACK, block: FORM_BLOCK, action: FORM_INPUT });
  const input: types.PlainTextInput = {
    type: 'plain_text_input',
    action_id: FORM_INPUT,
    multiline: true,
    max_length: form.kind === 'reason' ? 1000 : SLACK_INPUT_MAX,
    ...(form.kind === 'edit' ? { initial_value: form.initial } : {}),
    ...(form.kind === 'reason' ? { placeholder: { type: 'plain_text', text: 'e.g. this touches prod; run it against staging' } } : {}),
  };
  return {
    type: 'modal',
    callback_id: FORM_CALLBACK,
    private_metadata: JSON.stringify(meta),
    title: { type: 'plain_text', text: form.title },
    submit: { type: 'plain_text', text: form.kind === 'reason' ? 'Deny' : 'Allow' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [head, { type: 'input', block_id: FORM_BLOCK, label: { type: 'plain_text', text: plainCut(form.label, 150) }, element: input }],
  };
}

export function parseFormMetadata(raw: string | undefined): FormMetadata | undefined {
  try {
    const m = JSON.parse(raw ?? '') as Partial<FormMetadata>;
    if (typeof m.p !== 'string' || !(m.k === 'reason' || m.k === 'edit' || m.k === 'other' || m.k === 'feedback')) return undefined;
    if (m.q !== undefined && !Number.isInteger(m.q)) return undefined;
    return m as FormMetadata;
  } catch {
    // not ours
  }
  return undefined;
}
