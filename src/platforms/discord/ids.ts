/**
 * Opaque ids the core sees, and the button custom_ids Discord carries back (1-100 characters).
 */
import type { Conversation } from '../../chat.js';
import type { CardAction, CardChoice, FormKind, PromptAction } from '../../bridge/types.js';
import { createHash } from 'node:crypto';

/** Inline conversations in a server channel are per author: thread = 'user:<authorId>'. */
export const INLINE_THREAD_PREFIX = 'user:';

/** The Discord channel a conversation's messages go to (its thread, or the channel itself). */
export function targetChannel(conv: Conversation): string {
  return conv.thread && !conv.thread.startsWith(INLINE_THREAD_PREFIX) ? conv.thread : conv.channel;
}

export function encodeMessageRef(channelId: string, messageId: string): string {
  return `${channelId}/${messageId}`;
}

export function decodeMessageRef(id: string): { channelId: string; messageId: string } {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) throw new Error(`not a Discord message ref: ${JSON.stringify(id)}`);
  return { channelId: id.slice(0, slash), messageId: id.slice(slash + 1) };
}

export type ButtonAction = PromptAction | CardAction | 'stop' | 'rerun';
const ACTIONS = 'allow|allow_thread|allow_thread_all|edit|deny|deny_reason|show_input|stop|rerun|answer|pick|submit|other|skip|approve|revise';
const MAX_CUSTOM_ID = 100;
const DECODE = new RegExp(`^tb:(${ACTIONS})((?:\\.\\d{1,3}){0,2})([:~])(.+)$`, 's');

/**
 * Encodes `tb:<action>:<id>`; a card's control adds its question and option (`tb:answer.0.2:<id>`:
 * question 0, option 2). Ids too long for Discord's 100-character limit are replaced by a hash
 * kept in `longIds`, so decoding gives the original back while this process runs.
 */
export class CustomIds {
  private readonly longIds = new Map<string, string>();

  encode(action: ButtonAction | `form-${FormKind}`, id: string, args: readonly number[] = []): string {
    const head = `tb:${action}${args.map((a) => `.${a}`).join('')}`;
    const plain = `${head}:${id}`;
    if (plain.length <= MAX_CUSTOM_ID) return plain;
    const hash = createHash('sha256').update(id).digest('base64url').slice(0, 32);
    this.longIds.set(hash, id);
    return `${head}~${hash}`;
  }

  /** A button's or a select menu's custom_id -> its action, the opaque id, and a card's question and option. */
  decode(customId: string): { action: ButtonAction; id: string; choice?: CardChoice } | undefined {
    const m = DECODE.exec(customId);
    if (!m) return undefined;
    const id = m[3] === ':' ? m[4] : this.longIds.get(m[4]!);
    if (id === undefined) return undefined;
    const args = m[2] ? m[2].slice(1).split('.').map(Number) : [];
    const choice: CardChoice | undefined = args.length ? { question: args[0]!, ...(args.length > 1 ? { options: [args[1]!] } : {}) } : undefined;
    return { action: m[1] as ButtonAction, id, ...(choice ? { choice } : {}) };
  }

  /** A modal's custom_id: `tb:form-<kind>:<promptId>` (an "Other…" answer: `tb:form-other.<question>:<promptId>`). */
  encodeForm(kind: FormKind, id: string, question?: number): string {
    return this.encode(`form-${kind}`, id, question === undefined ? [] : [question]);
  }

  decodeForm(customId: string): { kind: FormKind; id: string; question?: number } | undefined {
    const m = /^tb:form-(reason|edit|other|feedback)(?:\.(\d{1,3}))?([:~])(.+)$/s.exec(customId);
    if (!m) return undefined;
    const id = m[3] === ':' ? m[4] : this.longIds.get(m[4]!);
    return id === undefined ? undefined : { kind: m[1] as FormKind, id, ...(m[2] !== undefined ? { question: Number(m[2]) } : {}) };
  }
}
