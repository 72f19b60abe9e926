/**
 * Identities are compared as (platform, id), written `platform:id`: `slack:U0123`, a Slack user
 * group `slack:S0123`, `discord:80351110224678912`, a Discord role `discord:role:123`,
 * `local:local-user`. A bare id never matches on its own: the same string can be a user on two
 * platforms (a local-page user named like a Slack approver must not decide Slack prompts).
 */
import type { UserRef } from '../delivery/surface.js';

/** A person as a check sees them: the platform they wrote on and who they are there. */
export interface Actor {
  platform: string;
  user: UserRef;
}

const FORMS: Array<{ re: RegExp; what: string }> = [
  { re: /^slack:[UW][A-Z0-9]+$/, what: 'slack user' },
  { re: /^slack:S[A-Z0-9]+$/, what: 'slack user group' },
  { re: /^discord:\d{1,25}$/, what: 'discord user' },
  { re: /^discord:role:\d{1,25}$/, what: 'discord role' },
  { re: /^local:[A-Za-z0-9_.@-]{1,64}$/, what: 'local user' },
];

export const IDENTITY_FORMS = 'slack:U0123 (user), slack:S0123 (user group), discord:80351110224678912 (user), discord:role:123… (role), local:local-user';

/** The canonical `platform:id` of an entry, or undefined when it is not one of the known forms. */
export function parseIdentity(raw: string): string | undefined {
  const s = raw.trim();
  const m = /^(slack|discord|local):(.*)$/i.exec(s);
  if (!m) return undefined;
  const platform = m[1]!.toLowerCase();
  const rest = platform === 'slack' ? m[2]!.toUpperCase() : m[2]!;
  const canonical = `${platform}:${platform === 'discord' ? rest.replace(/^ROLE:/i, 'role:') : rest}`;
  return FORMS.some((f) => f.re.test(canonical)) ? canonical : undefined;
}

/** For the error on a bare id: the `platform:id` it most likely means (a Slack id or a Discord snowflake). */
export function guessIdentity(raw: string): string | undefined {
  const s = raw.trim();
  if (/^[UWS][A-Z0-9]+$/.test(s)) return `slack:${s}`;
  if (/^\d{17,20}$/.test(s)) return `discord:${s}`;
  return undefined;
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
