/** A user's message kept in the state (a queued turn, a Run again button) made live again. */
import type { StoredMessage } from '../../state/index.js';
import type { BridgeContext } from './context.js';
import type { InboundMessage } from '../types.js';

/**
 * A stored message as an InboundMessage again. Its files are fetched anew where the platform can,
 * as a live message's are: after the turn is accepted, while it waits (`download`), so the
 * queued turns of a recovery fetch theirs side by side and none waits for another's files.
 */
export function rebuildMessage(ctx: BridgeContext, m: StoredMessage, eventSuffix = ''): InboundMessage {
  const msg: InboundMessage = {
    platform: m.platform,
    conversation: m.conversation,
    user: m.user,
    text: m.text,
    attachments: [],
    attachmentRefs: m.attachments,
    eventId: `${m.eventId}${eventSuffix}`,
    receivedAt: m.receivedAt,
    ...(m.source ? { source: m.source } : {}),
    notices: [...(m.notices ?? [])],
    ...(m.direct ? { direct: true } : {}),
  };
  if (m.attachments.length === 0) return msg;
  const surface = ctx.surfaces.get(m.platform)?.surface;
  if (!surface?.fetchAttachments) {
    msg.notices!.push(`The ${m.attachments.length === 1 ? 'file' : `${m.attachments.length} files`} of this message could not be fetched again after the restart.`);
    return msg;
  }
  const fetchAttachments = surface.fetchAttachments.bind(surface);
  msg.download = { count: m.attachments.length, fetch: (dir) => fetchAttachments(m.attachments, dir) };
  return msg;
}
