/**
 * Permission prompts as Discord messages, and the modals behind "Deny with reason" and "Edit and
 * allow". Pure functions.
 *
 *   🔐 **Permission needed** · `Bash`
 *   Run a command
 *   ```npm test```
 *   -# “Allow for this thread” adds `Bash(npm test:*)` for <@author>'s requests, “Allow for everyone in this thread” for anyone's here: <what it matches>
 *   -# <@author> or an approver (<@&role>) may decide · expires <t:…:R>
 *   [Allow once] [Allow for this thread] [Edit and allow] [Deny] [Deny with reason]
 *   [Allow for everyone in this thread] [Show full input]      (a row holds 5 buttons at most)
 * Decided: ✅ **Allowed for this thread** by @ana <t:…:t> · rule `Bash(npm test:*)` for <@ana>'s requests, no buttons.
 * Mentions never ping (allowed_mentions parse: []). The words: prompt-words.ts (shared).
 */
import type { PermissionPromptView } from '../../chat.js';
import { CHOICE_LABELS, addedRule, allowedHow, ruleChoicesLine, ruleWhose } from '../../prompt-words.js';
import type { PromptAction, PromptForm } from '../../bridge/types.js';
import type { CustomIds } from './ids.js';
import { DISCORD_MAX_CONTENT, FORM_INPUT_ID, MAX_INPUT_CHARS, STYLE, codeBlock, oneLine, subtext, type DiscordActionRow, type DiscordButton, type DiscordMessageBody, type DiscordModal } from './render.js';
import { renderCard, renderCardModal } from './card-render.js';

export { FORM_INPUT_ID } from './render.js';

const MAX_DECIDERS_SHOWN = 5;
/** Discord's text input holds at most 4,000 characters; labels 45, modal titles 45. */
const DISCORD_INPUT_MAX = 4000;

const ts = (ms: number, style: 't' | 'R' | 'f') => `<t:${Math.floor(ms / 1000)}:${style}>`;

function who(view: PermissionPromptView): string {
  if (!view.decidedBy) return 'someone';
  return view.decidedBy.name ? `@${view.decidedBy.name}` : `<@${view.decidedBy.id}>`;
}

function deciders(view: PermissionPromptView): string | undefined {
  const d = view.deciders;
  if (!d) return undefined;
  const list = [...d.users.map((u) => `<@${u}>`), ...d.groups.map((g) => `<@&${g}>`)];
  const shown = list.slice(0, MAX_DECIDERS_SHOWN).join(', ');
  const more = list.length > MAX_DECIDERS_SHOWN ? ` and ${list.length - MAX_DECIDERS_SHOWN} more` : '';
  if (d.approvals === 'approvers') return `an approver must decide${list.length ? ` (${shown}${more})` : ''}; <@${d.author.id}> may only deny`;
  return list.length ? `<@${d.author.id}> or an approver (${shown}${more}) may decide` : `<@${d.author.id}> may decide`;
}

function heading(view: PermissionPromptView): string {
  const at = view.decidedAt ? ` ${ts(view.decidedAt, 't')}` : '';
  switch (view.state) {
    case 'pending':
      return '🔐 **Permission needed**';
    case 'allowed': {
      const whose = ruleWhose(view.how, view.ruleFor ? `<@${view.ruleFor.id}>` : undefined);
      const rule = addedRule(view.how) && view.rule ? ` · rule ${code(view.rule)}${whose}` : '';
      return `✅ **${allowedHow(view.how)}** by ${who(view)}${at}${rule}`;
    }
    case 'denied':
      return `⛔ **Denied** by ${who(view)}${at}${view.reason ? `: “${oneLine(view.reason, 300)}”` : ''}`;
    case 'timeout':
      return `⌛ **Timed out**: denied${at}`;
    case 'expired':
      return '⌛ **Expired**';
  }
}

function btn(ids: CustomIds, action: PromptAction, style: number, promptId: string): DiscordButton {
  return { type: 2, style, label: CHOICE_LABELS[action], custom_id: ids.encode(action, promptId) };
}

/** A rule as inline code (a backtick in it would end the code span). */
const code = (rule: string): string => `\`${oneLine(rule, 200).replace(/`/g, "'")}\``;

export function renderPrompt(view: PermissionPromptView, ids: CustomIds): DiscordMessageBody {
  if (view.card) return renderCard(view, view.card, ids);
  const parts = [heading(view), `Tool: \`${oneLine(view.toolName, 100).replace(/`/g, "'")}\``];
  if (view.description) parts.push(oneLine(view.description, 300));
  const codeAt = parts.push(codeBlock(view.inputPreview)) - 1;
  if (view.state === 'pending') {
    if (view.rule) {
      const meaning = view.ruleMeaning ? `: ${oneLine(view.ruleMeaning, 600)}` : '';
      parts.push(subtext(ruleChoicesLine(code(view.rule), view.ruleFor ? `<@${view.ruleFor.id}>` : undefined) + meaning));
    }
    const facts: string[] = [];
    const d = deciders(view);
    if (d) facts.push(d);
    if (view.expiresAt) facts.push(`expires ${ts(view.expiresAt, 'R')}`);
    if (facts.length) parts.push(subtext(facts.join(' · ')));
  }
  if (view.note) parts.push(subtext(oneLine(view.note, 200)));
  let content = parts.join('\n');
  // Too long with the rule's lines: the input gives way (folded, with "Show full input"), never what the rule matches.
  let folded = view.truncated === true || view.inputPreview.length > MAX_INPUT_CHARS;
  const over = content.length - DISCORD_MAX_CONTENT;
  if (over > 0) {
    parts[codeAt] = codeBlock(view.inputPreview, Math.max(200, Math.min(MAX_INPUT_CHARS, view.inputPreview.length) - over - 40));
    content = parts.join('\n');
    folded = true;
  }
  if (content.length > DISCORD_MAX_CONTENT) content = `${content.slice(0, DISCORD_MAX_CONTENT - 4)}\n\`\`\``;
  const components: DiscordActionRow[] = [];
  if (view.state === 'pending') {
    const id = view.promptId;
    const row: DiscordButton[] = [btn(ids, 'allow', STYLE.success, id)];
    if (view.rule) row.push(btn(ids, 'allow_thread', STYLE.primary, id));
    if (view.editable) row.push(btn(ids, 'edit', STYLE.secondary, id));
    row.push(btn(ids, 'deny', STYLE.danger, id), btn(ids, 'deny_reason', STYLE.danger, id));
    components.push({ type: 1, components: row });
    const second: DiscordButton[] = [];
    if (view.rule) second.push(btn(ids, 'allow_thread_all', STYLE.primary, id));
    // folded by the core, or by this message's shorter code block
    if (folded) second.push(btn(ids, 'show_input', STYLE.secondary, id));
    if (second.length) components.push({ type: 1, components: second });
  }
  return { content, components, allowed_mentions: { parse: [] } };
}

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

export function renderModal(form: Extract<PromptForm, { kind: 'reason' | 'edit' | 'other' | 'feedback' }>, ids: CustomIds): DiscordModal {
  if (form.kind === 'other' || form.kind === 'feedback') return renderCardModal(form, ids);
  return {
    custom_id: ids.encodeForm(form.kind, form.promptId),
    title: cut(form.title, 45),
    components: [{
      type: 18,
      label: cut(form.label, 45),
      component: {
        type: 4, custom_id: FORM_INPUT_ID, style: 2, required: true,
        max_length: form.kind === 'reason' ? 1000 : DISCORD_INPUT_MAX,
        ...(form.kind === 'edit' ? { value: form.initial } : { placeholder: 'e.g. this touches prod; run it against staging' }),
      },
    }],
  };
}

/** The full input as ephemeral messages: code blocks of at most 1,900 characters, at most `max` of them. */
export function inputChunks(text: string, max = 4): string[] {
  const size = 1_900;
  const out: string[] = [];
  for (let i = 0; i < text.length && out.length < max; i += size) out.push(codeBlock(text.slice(i, i + size), size + 10));
  if (text.length > size * max) out.push(`… ${text.length - size * max} more characters not shown here.`);
  return out.length ? out : ['(empty input)'];
}
