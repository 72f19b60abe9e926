/**
 * Block Kit rendering: MessageContent and PermissionPromptView -> {text, blocks}.
 * The answer goes in a `markdown` block (standard markdown, rendered by Slack); thinking and
 * status are small muted context lines; Stop is a button whose value is the opaque id the core
 * gave, never anything the agent wrote. Permission prompts: prompt-blocks.ts.
 */
import type { types } from '@slack/bolt';
import type { MessageContent } from '../../chat.js';

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
  if (content.footer && content.footer.trim()) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: plainCut(escapeMrkdwn(content.footer.trim()), SECTION_TEXT_LIMIT) }] });
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

/*
 * Slack's `markdown` block renders most of standard markdown but not GFM tables, which would show
 * as rows of pipes. Tables outside code fences become aligned monospace code blocks instead.
 */
const SEPARATOR = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const FENCE = /^\s*(```|~~~)/;

function cells(row: string): string[] {
  let s = row.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

function isRow(line: string): boolean {
  return line.includes('|') && line.trim() !== '';
}

function renderTable(header: string[], rows: string[][]): string[] {
  const cols = Math.max(header.length, ...rows.map((r) => r.length));
  const widths = Array.from({ length: cols }, (_, i) => Math.max(...[header, ...rows].map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => widths.map((w, i) => (r[i] ?? '').padEnd(w)).join('  ').trimEnd();
  return ['```', line(header), widths.map((w) => '-'.repeat(Math.max(w, 1))).join('  '), ...rows.map(line), '```'];
}

export function tablesAsCode(markdown: string): string {
  if (!markdown.includes('|')) return markdown;
  const lines = markdown.split('\n');
  const out: string[] = [];
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) inFence = !inFence;
    const next = lines[i + 1];
    // GFM: the delimiter row has as many cells as the header (so "a | b" over "---" stays a heading).
    if (!inFence && isRow(line) && next !== undefined && SEPARATOR.test(next) && cells(next).length === cells(line).length) {
      const header = cells(line);
      const rows: string[][] = [];
      let j = i + 2;
      while (j < lines.length && isRow(lines[j]!) && !FENCE.test(lines[j]!)) rows.push(cells(lines[j++]!));
      out.push(...renderTable(header, rows));
      i = j - 1;
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}
