/** Help for `turnbridge allow` (apart from allow.ts so `--help` loads no store). */
export const ALLOW_USAGE = 'usage: turnbridge allow <platform:id | pairing code>... [--remove] [--config FILE]';

export const ALLOW_HELP = `Let people use the bridge (access is closed by default when Slack or Discord is on).

${ALLOW_USAGE}

Identities: slack:U0123 (a Slack user), discord:80351110224678912 (a Discord user),
discord:role:123… (everyone with a Discord role, in servers). Slack user groups (slack:S0123)
go in TURNBRIDGE_ALLOW_USERS, where the bridge looks up their members.
A pairing code (six letters and digits, e.g. K7QX2M) is what the bot's reply to a stranger shows:
\`turnbridge allow K7QX2M\` lets in the person it was shown to (valid for an hour, once).
The grant is kept in the bridge's store (TURNBRIDGE_DATA_DIR, or Redis with REDIS_URL) and
works on the person's next message, without a restart. The person's id is in the reply the
bridge gave them.

Options:
      --remove        Take the grant away again (the configured lists are not changed)
  -c, --config FILE   The bridge config file (default ./turnbridge.yaml; TURNBRIDGE_CONFIG wins)
  -h, --help          Show this help
`;

