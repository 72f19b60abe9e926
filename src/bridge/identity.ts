/**
 * Identities are compared as (platform, id), written `platform:id`: `slack:U0123`, a Slack user
 * group `slack:S0123`, `discord:80351110224678912`, a Discord role `discord:role:123`,
 * `local:local-user`. A bare id never matches on its own: the same string can be a user on two
 * platforms (a local-page user named like a Slack approver must not decide Slack prompts).
 * The written forms are parsed in config/identity-forms.ts.
 */
import type { UserRef } from '../delivery/surface.js';

/** A person as a check sees them: the platform they wrote on and who they are there. */
export interface Actor {
  platform: string;
  user: UserRef;
}

/** Every `platform:id` a person answers to: their user id and their groups / roles. */
export function identitiesOf(actor: Actor): string[] {
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
