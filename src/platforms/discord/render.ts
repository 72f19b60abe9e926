/**
 * MessageContent -> Discord message bodies (content + button rows); prompts: prompt-render.ts.
 * Pure functions; the Surface sends what these return.
 */
import type { MessageContent } from '../../chat.js';
import type { SurfaceCapabilities } from '../../delivery/surface.js';
import type { CustomIds } from './ids.js';

/** Discord's hard limit for `content`. */
export const DISCORD_MAX_CONTENT = 2000;
const MAX_STATUS_CHARS = 120;
/** Longest tool input shown in a prompt's code block (the rest: "Show full input"). */
export const MAX_INPUT_CHARS = 1200;

export const DISCORD_CAPABILITIES: SurfaceCapabilities = {
  // 2000 minus room for the thinking, status and footer subtext lines (see renderMessage).
  maxTextChars: 1700,
  maxThinkingChars: 150,
  buttons: true,
  minEditIntervalMs: 1000,
};

/** Button styles (discord-api-types ButtonStyle). */
export const STYLE = { primary: 1, secondary: 2, success: 3, danger: 4 } as const;

export interface DiscordButton { type: 2; style: number; label: string; custom_id: string }
/** A string select menu (alone in its row): options' labels, values and descriptions at most 100 characters, 25 options. */
export interface DiscordSelect {
  type: 3;
  custom_id: string;
  placeholder?: string;
  min_values: number;
  max_values: number;
  options: Array<{ label: string; value: string; description?: string }>;
}
/** A modal (interaction callback type 9) for a form (a reason, an edited input, a typed answer, a plan's feedback). */
export interface DiscordModal {
  custom_id: string;
  title: string;
  components: Array<{ type: 18; label: string; component: { type: 4; custom_id: string; style: 2; required: true; max_length: number; value?: string; placeholder?: string } }>;
}

/** The custom_id of a modal's one text input. */
export const FORM_INPUT_ID = 'value';

export interface DiscordActionRow { type: 1; components: Array<DiscordButton | DiscordSelect> }

export interface DiscordMessageBody {
  content: string;
  components: DiscordActionRow[];
  /** Agent text never pings anyone (@everyone, roles, users). */
  allowed_mentions: { parse: [] };
}

const TONE_ICON: Record<NonNullable<MessageContent['tone']>, string> = {
  progress: '⏳', success: '✅', error: '⚠️', warning: '⚠️', info: 'ℹ️',
};

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Thinking keeps its newest words. */
function tailLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `…${flat.slice(flat.length - max + 1)}`;
}

/** Subtext (`-# `) is one muted line; keep markdown that would break it out. */
export function subtext(text: string): string {
  return `-# ${text.replace(/^[#>\-*\s]+/, '')}`;
}

export function renderMessage(content: MessageContent, ids: CustomIds, caps: SurfaceCapabilities = DISCORD_CAPABILITIES): DiscordMessageBody {
  const lines: string[] = [];
  const text = content.text.trimEnd();
  if (text) lines.push(text);
  const extra: string[] = [];
  if (content.thinking && content.thinking.trim()) extra.push(subtext(`💭 ${tailLine(content.thinking, caps.maxThinkingChars)}`));
  if (content.status && content.status.trim()) {
    const icon = TONE_ICON[content.tone ?? 'progress'];
    extra.push(subtext(`${icon} ${oneLine(content.status, MAX_STATUS_CHARS)}`));
  }
  if (content.footer && content.footer.trim()) extra.push(subtext(oneLine(content.footer, MAX_STATUS_CHARS)));
  let body = lines.join('\n');
  if (extra.length) body = body ? `${body}\n${extra.join('\n')}` : extra.join('\n');
  if (!body) body = '…';
  if (body.length > DISCORD_MAX_CONTENT) {
    // The delivery layer splits text at maxTextChars; this only guards against a caller that did not.
    body = `${body.slice(0, DISCORD_MAX_CONTENT - 1)}…`;
  }
  const components: DiscordActionRow[] = content.stopActionId
    ? [{ type: 1, components: [{ type: 2, style: STYLE.secondary, label: 'Stop', custom_id: ids.encode('stop', content.stopActionId) }] }]
    : content.rerunActionId
      ? [{ type: 1, components: [{ type: 2, style: STYLE.primary, label: 'Run again', custom_id: ids.encode('rerun', content.rerunActionId) }] }]
      : [];
  return { content: body, components, allowed_mentions: { parse: [] } };
}

/** A code block that cannot be closed early by the text inside it. */
export function codeBlock(text: string, max = MAX_INPUT_CHARS): string {
  let shown = text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
  shown = shown.replace(/```/g, '`\u200b``');
  return `\`\`\`\n${shown}\n\`\`\``;
}
