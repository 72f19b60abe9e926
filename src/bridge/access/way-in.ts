/**
 * The way-in reply to a person not on the access list (docs/security.md "Access"). A pairing code
 * stands for the person who asked, so it is shown to them alone: in a DM as the reply; in a
 * channel through the platform's private answer (Surface.tellPrivately: Slack ephemeral, Discord a
 * DM), and the channel sees no code. Where no private answer is possible the channel gets the way
 * in by id, without a code.
 */
import type { Surface } from '../../delivery/surface.js';
import type { Logger } from '../../log.js';
import type { AccessGrants } from '../../state/index.js';
import type { InboundMessage } from '../types.js';
import { actorOf, identityOf, wayInText } from './access.js';

export const WAY_IN_SENT_BY_DM = 'I sent you a direct message about getting access to this bridge.';

/** `ctx`: the grants that make pairing codes, and where to log; `post` says something in the message's conversation (delivery.say). */
export async function sendWayIn(ctx: { grants: AccessGrants; logger: Logger }, surface: Surface, msg: InboundMessage, post: (text: string) => Promise<void>): Promise<void> {
  const actor = actorOf(msg);
  const who = identityOf(actor);
  const code = () => ctx.grants.pairingCode(who, msg.user.name ? { name: msg.user.name } : {});
  if (msg.direct) {
    await post(wayInText(actor, await code()));
    return;
  }
  if (surface.tellPrivately && msg.source) {
    const pairing = await code();
    if (pairing) {
      try {
        const where = await surface.tellPrivately(msg.source, msg.user, wayInText(actor, pairing));
        if (where === 'dm') await post(WAY_IN_SENT_BY_DM);
        return;
      } catch (err) {
        ctx.logger.warn({ err, platform: msg.platform, user: msg.user.id }, 'could not answer privately; the channel gets the way in without a pairing code');
      }
    }
  }
  await post(wayInText(actor));
}
