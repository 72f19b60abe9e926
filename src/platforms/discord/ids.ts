/**
 * Opaque ids the core sees, and the button custom_ids Discord carries back (1-100 characters).
 */
import type { Conversation } from '../../chat.js';
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

export type ButtonAction = 'allow' | 'allow_thread' | 'allow_thread_all' | 'edit' | 'deny' | 'deny_reason' | 'show_input' | 'stop' | 'rerun';
export type FormKind = 'reason' | 'edit';
const MAX_CUSTOM_ID = 100;

/**
 * Encodes `tb:<action>:<id>`. Ids too long for Discord's 100-character limit are replaced by a
 * hash kept in `longIds`, so decoding gives the original back while this process runs.
 */
export class CustomIds {
  private readonly longIds = new Map<string, string>();

  encode(action: ButtonAction | `form-${FormKind}`, id: string): string {
    const plain = `tb:${action}:${id}`;
    if (plain.length <= MAX_CUSTOM_ID) return plain;
    const hash = createHash('sha256').update(id).digest('base64url').slice(0, 32);
    this.longIds.set(hash, id);
    return `tb:${action}~${hash}`;
  }

  decode(customId: string): { action: ButtonAction; id: string } | undefined {
    const m = /^tb:(allow|allow_thread|allow_thread_all|edit|deny|deny_reason|show_input|stop|rerun)([:~])(.+)$/s.exec(customId);
    if (!m) return undefined;
    const id = m[2] === ':' ? m[3] : this.longIds.get(m[3]!);
    return id === undefined ? undefined : { action: m[1] as ButtonAction, id };
  }

  /** A modal's custom_id: `tb:form-<kind>:<promptId>`. */
  encodeForm(kind: FormKind, id: string): string {
    return this.encode(`form-${kind}`, id);
  }

  decodeForm(customId: string): { kind: FormKind; id: string } | undefined {
    const m = /^tb:form-(reason|edit)([:~])(.+)$/s.exec(customId);
    if (!m) return undefined;
    const id = m[2] === ':' ? m[3] : this.longIds.get(m[3]!);
    return id === undefined ? undefined : { kind: m[1] as FormKind, id };
  }
}
