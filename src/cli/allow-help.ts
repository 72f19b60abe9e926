/** Help for `turnbridge allow` (apart from allow.ts so `--help` loads no store). */
export const ALLOW_USAGE = 'usage: turnbridge allow <pairing code | platform:id>... [--yes] | --remove <platform:id>... | --list  [--config FILE]';

export const ALLOW_HELP = `Let people use the bridge (access is closed by default when Slack or Discord is on).

${ALLOW_USAGE}

A pairing code (six letters and digits, e.g. K7QX2M) is what the bot shows a stranger (in a
channel, to them alone: a Slack ephemeral message, a Discord DM). \`turnbridge allow K7QX2M\`
shows whom it stands for (platform, id, name, when they asked) and asks "Let … use the bridge?
[y/N]"; only y grants. Without a terminal it grants nothing unless --yes is given. A code lasts an
hour and works once.
Identities: slack:U0123 (a Slack user), discord:80351110224678912 (a Discord user),
discord:role:123… (everyone with a Discord role, in servers); granted without a question (you
typed them). Slack user groups (slack:S0123) go in TURNBRIDGE_ALLOW_USERS, where the bridge looks
up their members. Someone already allowed is told so ("already allowed"); nothing changes.
The grant is kept in the bridge's store (TURNBRIDGE_DATA_DIR, or Redis with REDIS_URL) and works on
the person's next message, without a restart. Grants and removals are in \`turnbridge audit\`.

Options:
  -y, --yes           Grant the pairing codes without asking (scripts: check whom they stand for first)
      --list          Show every grant: identity, name, when, by whom, how
      --remove        Take the named grants away (the configured lists are not changed)
  -c, --config FILE   The bridge config file (default ./turnbridge.yaml; TURNBRIDGE_CONFIG wins)
  -h, --help          Show this help
`;
