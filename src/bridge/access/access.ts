/**
 * Who may start a turn (docs/security.md). The global access list applies everywhere, direct
 * messages included; a route can narrow it (allow_users / allow_channels), never widen it, and
 * its lists hold wherever its profile is reached (`route` is the one routing.ts folded).
 * Every refusal names the setting that would allow the message.
 */
import type { UserRef } from '../../chat.js';
import type { AccessConfig, RouteConfig } from '../../config/types.js';
import type { AccessGrants } from '../../state/index.js';
import type { InboundMessage } from '../types.js';

export type AccessVerdict =
  | { ok: true; admin: boolean }
  | { ok: false; reason: 'not-allowed' | 'dms-off' | 'channel' | 'route-channel' | 'route-user'; text: string };

export function actorOf(msg: Pick<InboundMessage, 'platform' | 'user'>): Actor {
  return { platform: msg.platform, user: msg.user };
}

export function isAdmin(access: AccessConfig, actor: Actor): boolean {
  return onList(actor, access.admins);
}

/** Route lists may be written bare (`U0123`, the route's own platform) or as `platform:id`. */
function onRouteList(actor: Actor, list: readonly string[]): boolean {
  const mine = identitiesOf(actor);
  const bare = [actor.user.id, ...(actor.user.roles ?? [])];
  return list.some((e) => mine.includes(e) || (!e.includes(':') && bare.includes(e)));
}

/** The reply a person outside the list gets: what an admin does to let them in. */
export function wayInText(actor: Actor, code?: string): string {
  const id = identityOf(actor);
  const pair = code ? ` or \`turnbridge allow ${code}\` (this pairing code works for an hour)` : '';
  return `You are not on this bridge's access list yet, so nothing was run. To let you in, an admin of this bridge runs \`turnbridge allow ${id}\`${pair} `
    + `(or adds ${id} to TURNBRIDGE_ALLOW_USERS / access.allow_users).`;
}

export async function checkAccess(access: AccessConfig, grants: AccessGrants, msg: InboundMessage, route: RouteConfig | undefined): Promise<AccessVerdict> {
  const actor = actorOf(msg);
  const admin = isAdmin(access, actor);
  // The local page has no accounts: loopback binding or its token guards it (http layer).
  if (msg.platform !== 'local' && !admin) {
    if (msg.direct && !access.dms) {
      return { ok: false, reason: 'dms-off', text: 'Direct messages to this bot are turned off; mention it in a channel instead (TURNBRIDGE_ALLOW_DMS / access.dms).' };
    }
    if (!msg.direct && access.channels && !access.channels.includes(`${msg.platform}:${msg.conversation.channel}`)) {
      return { ok: false, reason: 'channel', text: `I am not enabled in this channel (add ${msg.platform}:${msg.conversation.channel} to TURNBRIDGE_ALLOW_CHANNELS / access.channels).` };
    }
    if (access.mode === 'closed' && !onList(actor, access.allowUsers) && !(await grants.hasAny(identitiesOf(actor)))) {
      return { ok: false, reason: 'not-allowed', text: wayInText(actor) };
    }
  }
  if (route?.allowChannels && !route.allowChannels.includes(msg.conversation.channel)) {
    return { ok: false, reason: 'route-channel', text: 'Sorry, I am not enabled here (the allow_channels of a route in turnbridge.yaml that names this agent\'s profile; a DM needs a dm: route naming it).' };
  }
  if (route?.allowUsers && !onRouteList(actor, route.allowUsers)) {
    return { ok: false, reason: 'route-user', text: `Sorry, you are not allowed to use this bot here: ask an admin to add ${identityOf(actor)} to the allow_users of a route in turnbridge.yaml that names this agent's profile (a route's restrictions hold wherever its profile is reached, DMs included).` };
  }
  return { ok: true, admin };
}

/*
 * Identities are compared as (platform, id), written `platform:id`: `slack:U0123`, a Slack user
 * group `slack:S0123`, `discord:80351110224678912`, a Discord role `discord:role:123`,
 * `local:local-user`. A bare id never matches on its own: the same string can be a user on two
 * platforms (a local-page user named like a Slack approver must not decide Slack prompts).
 * The written forms are parsed in config/identity-forms.ts.
 */
/** A person as a check sees them: the platform they wrote on and who they are there. */
export interface Actor {
  platform: string;
  user: UserRef;
}

/** Every `platform:id` a person answers to: their user id and their groups / roles. */
function identitiesOf(actor: Actor): string[] {
  const p = actor.platform;
  const out = [`${p}:${actor.user.id}`];
  for (const r of actor.user.roles ?? []) out.push(p === 'discord' ? `discord:role:${r}` : `${p}:${r}`);
  return out;
}

/** The same person on the same platform (never a same-named id elsewhere). */
export function samePerson(a: Actor, b: Actor): boolean {
  return a.platform === b.platform && a.user.id === b.user.id;
}

/** Whether any of the person's identities is on the list. */
export function onList(actor: Actor, list: readonly string[]): boolean {
  if (list.length === 0) return false;
  return identitiesOf(actor).some((id) => list.includes(id));
}

/** `slack:U0123` for messages and logs. */
export function identityOf(actor: Actor): string {
  return `${actor.platform}:${actor.user.id}`;
}
