/**
 * Block Kit rendering: MessageContent and PermissionPromptView -> {text, blocks}.
 * The answer goes in a `markdown` block (standard markdown, rendered by Slack); thinking and
 * status are small muted context lines; Stop / Allow / Deny are buttons whose value is the
 * opaque id the core gave, never anything the agent wrote.
 */
import type { types } from '@slack/bolt';
import type { MessageContent, PermissionPromptView } from '../../delivery/surface.js';
import { tablesAsCode } from './markdown-tables.js';

type Block = types.KnownBlock;

export const ACTION_STOP = 'tb_stop';
export const ACTION_ALLOW = 'tb_allow';
export const ACTION_DENY = 'tb_deny';
export const ACTION_RERUN = 'tb_rerun';

/** Cumulative markdown-block limit per message (Slack). */
export const MARKDOWN_BLOCK_LIMIT = 12_000;
/** chat.update rejects `text` over 4,000; the fallback stays well under. */
export const FALLBACK_TEXT_LIMIT = 3_000;
/** section / context mrkdwn text limit. */
export const SECTION_TEXT_LIMIT = 3_000;

export interface RenderedMessage {
  text: string;
  blocks: Block[];
}

/** Escape the three characters Slack's mrkdwn treats as control characters. */
export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Cut to `max` chars; an unclosed ``` fence in the kept part is closed. */
export function truncateMarkdown(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, Math.max(0, max - 6)).replace(/\s+$/, '') + '…';
  const fences = cut.match(/^\s*```/gm)?.length ?? 0;
  if (fences % 2 === 1) cut += '\n```';
  return cut;
}

function plainCut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

const TONE_ICON: Record<NonNullable<MessageContent['tone']>, string> = {
  progress: ':hourglass_flowing_sand:',
  success: ':white_check_mark:',
  error: ':x:',
  warning: ':warning:',
  info: ':information_source:',
};

export function renderMessage(content: MessageContent): RenderedMessage {
  const blocks: Block[] = [];
  const answer = truncateMarkdown(tablesAsCode(content.text ?? ''), MARKDOWN_BLOCK_LIMIT);
  if (content.thinking && content.thinking.trim()) {
    const line = plainCut(content.thinking.replace(/\s+/g, ' ').trim(), SECTION_TEXT_LIMIT - 40);
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `:thought_balloon: _${escapeMrkdwn(line)}_` }] });
  }
  if (answer.trim()) blocks.push({ type: 'markdown', text: answer });
  if (content.status) {
    const icon = TONE_ICON[content.tone ?? 'progress'] ?? '';
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: plainCut(`${icon} ${escapeMrkdwn(content.status)}`.trim(), SECTION_TEXT_LIMIT) }] });
  }
  if (content.stopActionId) {
    blocks.push({
      type: 'actions',
      block_id: 'tb_live_controls',
      elements: [{ type: 'button', action_id: ACTION_STOP, text: { type: 'plain_text', text: 'Stop' }, value: content.stopActionId }],
    });
  } else if (content.rerunActionId) {
    blocks.push({
      type: 'actions',
      block_id: 'tb_rerun_controls',
      elements: [{ type: 'button', action_id: ACTION_RERUN, text: { type: 'plain_text', text: 'Run again' }, value: content.rerunActionId }],
    });
  }
  if (blocks.length === 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: '…' }] });
  const fallback = answer.trim() ? answer : (content.status ?? content.thinking ?? '…');
  return { text: plainCut(fallback, FALLBACK_TEXT_LIMIT), blocks };
}

/** Keep a code block intact: no ``` inside, escaped, and the whole section under `max` chars. */
function codeBlock(body: string, max: number): string {
  const escaped = escapeMrkdwn(body.replace(/```/g, '`\u200b``'));
  const room = max - 8;
  const shown = escaped.length <= room
    ? escaped
    : `${escaped.slice(0, room - 16).replace(/&[a-z]{0,3}$/, '')}\n… (truncated)`;
  return '```\n' + shown + '\n```';
}

function who(view: PermissionPromptView): { mention: string; plain: string } {
  const u = view.decidedBy;
  if (!u) return { mention: 'someone', plain: 'someone' };
  return { mention: `<@${u.id}>`, plain: `@${u.name ?? u.id}` };
}

export function renderPrompt(view: PermissionPromptView): RenderedMessage {
  const title = `:lock: *Permission request:* \`${escapeMrkdwn(plainCut(view.toolName, 200))}\``;
  const desc = view.description ? `\n${escapeMrkdwn(plainCut(view.description, 1_000))}` : '';
  const blocks: Block[] = [{ type: 'section', text: { type: 'mrkdwn', text: plainCut(title + desc, SECTION_TEXT_LIMIT) } }];
  if (view.inputPreview) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: codeBlock(view.inputPreview, SECTION_TEXT_LIMIT) } });
  }
  const d = who(view);
  let outcome = '';
  let fallback = `Permission request: ${view.toolName}`;
  switch (view.state) {
    case 'pending':
      blocks.push({
        type: 'actions',
        block_id: 'tb_prompt',
        elements: [
          { type: 'button', action_id: ACTION_ALLOW, style: 'primary', text: { type: 'plain_text', text: 'Allow' }, value: view.promptId },
          { type: 'button', action_id: ACTION_DENY, style: 'danger', text: { type: 'plain_text', text: 'Deny' }, value: view.promptId },
        ],
      });
      fallback += ' (waiting for Allow / Deny)';
      break;
    case 'allowed':
      outcome = `:white_check_mark: Allowed by ${d.mention}`;
      fallback += ` - Allowed by ${d.plain}`;
      break;
    case 'denied':
      outcome = `:no_entry_sign: Denied by ${d.mention}`;
      fallback += ` - Denied by ${d.plain}`;
      break;
    case 'timeout':
      outcome = ':hourglass: Timed out - denied';
      fallback += ' - Timed out';
      break;
    case 'expired':
      outcome = ':hourglass: Expired';
      fallback += ' - Expired';
      break;
  }
  if (view.note) {
    outcome = outcome ? `${outcome} - ${escapeMrkdwn(view.note)}` : escapeMrkdwn(view.note);
    fallback += ` (${view.note})`;
  }
  if (outcome) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: plainCut(outcome, SECTION_TEXT_LIMIT) }] });
  return { text: plainCut(fallback, FALLBACK_TEXT_LIMIT), blocks };
}
