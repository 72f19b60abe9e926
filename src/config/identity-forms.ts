/**
 * The written forms of an identity, `platform:id`: `slack:U0123`, a Slack user group
 * `slack:S0123`, `discord:80351110224678912`, a Discord role `discord:role:123`,
 * `local:local-user`. Parsed here, where the access lists and approvers are read; how a person
 * is matched against them is the bridge's (bridge/access/access.ts).
 */
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
