/**
 * Permission prompts as Discord messages, and the modals behind "Deny with reason" and "Edit and
 * allow". Pure functions.
 *
 *   🔐 **Permission needed** · `Bash`
 *   Run a command
 *   ```npm test```
 *   -# "Allow for this thread" adds `Bash(npm test:*)` · <@author> or an approver (<@&role>) may decide · expires <t:…:R>
 *   [Allow once] [Allow for this thread] [Edit and allow] [Deny] [Deny with reason]   [Show full input]
 * Decided: ✅ **Allowed for this thread** by @ana <t:…:t> · rule `Bash(npm test:*)`, no buttons.
 * Mentions never ping (allowed_mentions parse: []).
 */
import type { PermissionPromptView } from '../../delivery/surface.js';
import type { PromptAction, PromptForm } from '../../bridge/types.js';
import type { CustomIds } from './ids.js';
import { DISCORD_MAX_CONTENT, MAX_INPUT_CHARS, STYLE, codeBlock, oneLine, subtext, type DiscordActionRow, type DiscordButton, type DiscordMessageBody } from './render.js';

const MAX_DECIDERS_SHOWN = 5;
/** Discord's text input holds at most 4,000 characters; labels 45, modal titles 45. */
export const DISCORD_INPUT_MAX = 4000;
export const FORM_INPUT_ID = 'value';

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
      const what = view.how === 'thread' ? 'Allowed for this thread' : view.how === 'edited' ? 'Allowed with edited input' : view.how === 'once' ? 'Allowed once' : 'Allowed';
      const rule = view.how === 'thread' && view.rule ? ` · rule \`${view.rule.replace(/`/g, "'")}\`` : '';
      return `✅ **${what}** by ${who(view)}${at}${rule}`;
    }
    case 'denied':
      return `⛔ **Denied** by ${who(view)}${at}${view.reason ? `: “${oneLine(view.reason, 300)}”` : ''}`;
    case 'timeout':
      return `⌛ **Timed out**: denied${at}`;
    case 'expired':
      return '⌛ **Expired**';
  }
}

function btn(ids: CustomIds, action: PromptAction, label: string, style: number, promptId: string): DiscordButton {
  return { type: 2, style, label, custom_id: ids.encode(action, promptId) };
}

export function renderPrompt(view: PermissionPromptView, ids: CustomIds): DiscordMessageBody {
  const parts = [heading(view), `Tool: \`${oneLine(view.toolName, 100).replace(/`/g, "'")}\``];
  if (view.description) parts.push(oneLine(view.description, 300));
  parts.push(codeBlock(view.inputPreview));
  if (view.state === 'pending') {
    const facts: string[] = [];
    if (view.rule) facts.push(`“Allow for this thread” adds \`${oneLine(view.rule, 200).replace(/`/g, "'")}\``);
    const d = deciders(view);
    if (d) facts.push(d);
    if (view.expiresAt) facts.push(`expires ${ts(view.expiresAt, 'R')}`);
    if (facts.length) parts.push(subtext(facts.join(' · ')));
  }
  if (view.note) parts.push(subtext(oneLine(view.note, 200)));
  let content = parts.join('\n');
  if (content.length > DISCORD_MAX_CONTENT) content = `${content.slice(0, DISCORD_MAX_CONTENT - 4)}\n\`\`\``;
  const components: DiscordActionRow[] = [];
  if (view.state === 'pending') {
    const id = view.promptId;
    const row: DiscordButton[] = [btn(ids, 'allow', 'Allow once', STYLE.success, id)];
    if (view.rule) row.push(btn(ids, 'allow_thread', 'Allow for this thread', STYLE.primary, id));
    if (view.editable) row.push(btn(ids, 'edit', 'Edit and allow', STYLE.secondary, id));
    row.push(btn(ids, 'deny', 'Deny', STYLE.danger, id), btn(ids, 'deny_reason', 'Deny with reason', STYLE.danger, id));
    components.push({ type: 1, components: row });
    // folded by the core, or by this message's shorter code block
    if (view.truncated || view.inputPreview.length > MAX_INPUT_CHARS) components.push({ type: 1, components: [btn(ids, 'show_input', 'Show full input', STYLE.secondary, id)] });
  }
  return { content, components, allowed_mentions: { parse: [] } };
}

/** A modal (interaction callback type 9) for a reason or an edit form. */
export interface DiscordModal {
  custom_id: string;
  title: string;
  components: Array<{ type: 18; label: string; component: { type: 4; custom_id: string; style: 2; required: true; max_length: number; value?: string; placeholder?: string } }>;
}

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

export function renderModal(form: Extract<PromptForm, { kind: 'reason' | 'edit' }>, ids: CustomIds): DiscordModal {
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
