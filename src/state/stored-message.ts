/** A user's message as the state keeps it (a queued turn, a Run again button): no files, only their references. */
import type { StoredMessage } from './records.js';

/** What toStored reads of a message as received (the bridge's InboundMessage has these fields). */
export type ReceivedMessage = Omit<StoredMessage, 'attachments'> & { attachmentRefs?: StoredMessage['attachments'] };

/** The user's message as received: text, author, where, and the files as references only. */
export function toStored(msg: ReceivedMessage): StoredMessage {
  return {
    platform: msg.platform,
    conversation: msg.conversation,
    user: msg.user,
    text: msg.text,
    eventId: msg.eventId,
    receivedAt: msg.receivedAt,
    ...(msg.source ? { source: msg.source } : {}),
    attachments: msg.attachmentRefs ?? [],
    ...(msg.notices?.length ? { notices: msg.notices } : {}),
    ...(msg.direct ? { direct: true } : {}),
  };
}
