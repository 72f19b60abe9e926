/**
 * Block Kit rendering: MessageContent and PermissionPromptView -> {text, blocks}.
 * The answer goes in a `markdown` block (standard markdown, rendered by Slack); thinking and
 * status are small muted context lines; Stop is a button whose value is the opaque id the core
 * gave, never anything the agent wrote. Permission prompts: prompt-blocks.ts.
 */
import type { MessageContent } from '../../chat.js';
import type { types } from '@slack/bolt';
import { tablesAsCode } from './markdown-tables.js';

type Block = types.KnownBlock;

export const ACTION_STOP = 'tb_stop';
export const ACTION_RERUN = 'tb_rerun';

/** Cumulative markdown-block limit per message (Slack). */
const MARKDOWN_BLOCK_LIMIT = 12_000;
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

/**
 * Agent text that notifies no one: `<!here>`, `<!channel>`, `<!everyone>`, `<!subteam^S…>`,
 * `<@U…>` become their escaped, inert text (`&lt;!here>` shows as "<!here>"). Links (`<https://…>`)
 * stay. Piecewise: only a `<` at the very end needs the next piece.
 */
export function neutralizeMentions(s: string): string {
  return s.replace(/<(?=[!@])/g, '&lt;');
}

/** Cut to `max` chars; an unclosed ``` fence in the kept part is closed. */
export function truncateMarkdown(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, Math.max(0, max - 6)).replace(/\s+$/, '') + '…';
  const fences = cut.match(/^\s*```/gm)?.length ?? 0;
  if (fences % 2 === 1) cut += '\n```';
  return cut;
}

export function plainCut(s: string, max: number): string {
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
