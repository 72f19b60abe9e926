import { readFileSync } from 'node:fs';
import { ALLOW_HELP, ALLOW_USAGE } from './allow-help.js';

export type CommandName = 'run' | 'chat' | 'start' | 'doctor' | 'audit' | 'allow';

const USAGE: Record<CommandName | 'main', string> = {
  main: 'usage: turnbridge <run|chat|start|doctor|audit|allow> [options]   (turnbridge --help, turnbridge <command> --help)',
  run: 'usage: turnbridge run <profile> --message TEXT [--session ID] [--session-name NAME] [--attach URL]... [--no-stream] [--json]',
  chat: 'usage: turnbridge chat <profile> [--session ID] [--session-name NAME] [--no-stream]',
  start: 'usage: turnbridge start [--config FILE] [--host HOST] [--port PORT] [--local]',
  doctor: 'usage: turnbridge doctor [--json] [--config FILE]',
  audit: 'usage: turnbridge audit [--since 24h] [--json] [--config FILE]',
  allow: ALLOW_USAGE,
};

const HELP: Record<CommandName | 'main', string> = {
  main: `turnbridge — put AgentProc (wire 0.4) agents into Slack and Discord

${USAGE.main}

Commands:
  run <profile>     Run one turn of an agent and print its reply
  chat <profile>    Talk to an agent in the terminal, turn after turn
  start             Start the bridge (Slack, Discord, local)
  doctor            Check the setup (tokens, scopes, intents, profiles, store, access) and say what to fix
  audit             Print the audit trail (who allowed, denied, let in or set rules for what)
  allow <code>...   Let people use the bridge: turnbridge allow K7QX2M (shows whom, asks), slack:U0123, --list, --remove

Options:
  -h, --help        Show help (also after a command)
  -v, --version     Print the version

Examples:
  turnbridge run profiles/echo/profile.yaml --message hi --json
  turnbridge chat profiles/demo/profile.yaml
`,
  run: `Run one agent turn with a profile and print the reply.

${USAGE.run}

Options:
  -m, --message TEXT       The user message (required unless --attach is given); "-" reads it
                           from stdin. A value may start with a dash (--message -x); -- ends options
  -s, --session ID         Continue this agent session (the id a previous turn printed)
      --session-name NAME  Human-readable session name (default "default")
  -a, --attach URL         Add an attachment; kind "image" for image extensions, else "file". Repeatable
      --no-stream          Ignore partial events for this run (profile streaming: false)
      --json               Print exactly one JSON object at the end instead of streaming:
                           {"reply","session_id","error","exit_code","partials":[{"text","role"?}],
                            "notices":[string],"usage"?}  (notices always present)
  -h, --help               Show this help

Output without --json: output partials go to stdout as they arrive, followed by the rest of
the reply; thinking partials are dimmed on a terminal and go to stderr when stdout is not a
terminal; errors, notices and the session id go to stderr.
Exit status: the turn's exit code (0 success, 1 agent error, 124 timeout, the agent's own
non-zero code otherwise, 130 interrupted); 2 for bad arguments.
Permission requests (profiles with permission: true) are asked y/n on the terminal, and denied
when stdin is not a terminal.
`,
  chat: `Talk to an agent in the terminal. The session id is kept between turns.

${USAGE.chat}

Options:
  -s, --session ID         Start by continuing this agent session
      --session-name NAME  Human-readable session name (default "default")
      --no-stream          Ignore partial events (show each reply when the turn ends)
  -h, --help               Show this help

In the conversation:
  /new        Start a new session (forget the session id)
  /help       Show these commands
  /exit       Leave (so does Ctrl-D)
  Ctrl-C      Cancel the running turn (at the prompt: press twice to leave)
Permission requests are asked as "Allow? [y/N]"; anything but y/yes denies.
`,
  audit: `Print the audit trail the bridge keeps in its store, oldest first: permission decisions,
access grants and their removal, thread rules added and cleared.

${USAGE.audit}

Options:
      --since WHEN     How far back: 90s, 30m, 2h, 7d, or a date (2026-12-01T09:00Z). Default 24h
      --json           One JSON object per line (NDJSON), each with kind (decision | grant |
                       grant-removed | rule-added | rule-cleared), id, at (ms) and the kind's
                       fields (docs/approvals.md#audit-trail)
  -c, --config FILE    The bridge config file (default: TURNBRIDGE_CONFIG or ./turnbridge.yaml)
  -h, --help           Show this help

The table's columns: time (UTC), kind, platform, who, conversation, tool, decision, detail (the
deny reason, the rule, the input; cut to fit, --json has all of it). Reads the same store as the
bridge (data_dir, or Redis when REDIS_URL is set) and changes nothing. Records are kept 90 days.
`,
  start: `Start the bridge: connect the configured platforms and serve turns until stopped.

${USAGE.start}

  -c, --config FILE  the bridge config file (default ./turnbridge.yaml when present; TURNBRIDGE_CONFIG wins)
      --host HOST    the address to listen on (HOST; default 127.0.0.1)
  -p, --port PORT    the port (PORT; default 3000; 0 picks a free one)
      --local        serve the local chat page even when Slack or Discord tokens are set (TURNBRIDGE_LOCAL=1)

The rest of the configuration comes from the environment (and ./.env) and the config file; see
docs/operations.md. Every profile it names is checked first: a broken one stops the start. Stop
with Ctrl-C or SIGTERM (running turns are finalized as "interrupted").
`,
  doctor: `Check the setup that \`turnbridge start\` would use and say what to fix.

${USAGE.doctor}

Options:
  -c, --config FILE  The bridge config file (default ./turnbridge.yaml; TURNBRIDGE_CONFIG wins)
      --json         Print one JSON object: {"ok","checks":[{"section","status","text","fix"?}]}
  -h, --help         Show this help

Reads the environment and ./.env as start does. For each platform with a token: the token, its
scopes or intents, Socket Mode or the HTTP URL, channel membership or servers and permissions.
Then each profile (loads, command found, CLI installed and logged in, cwd writable), the store
(data directory writable or Redis reachable) and access and sandboxing.
Each line is ✓ (fine), ! (works, with a risk) or ✗ (broken), with the fix under it.
Exit status: 0 when nothing is ✗, 1 otherwise, 2 for bad arguments.
`,
  allow: '',
};


export function usageLine(command: CommandName | 'main'): string {
  return USAGE[command];
}

export function helpText(command: CommandName | 'main'): string {
  return command === 'allow' ? ALLOW_HELP : HELP[command];
}

export function versionText(): string {
  return `turnbridge ${ownPackage().version ?? 'unknown'} (AgentProc wire 0.4)`;
}

/** turnbridge's package.json, found upwards from this module (src/cli/ or a bundle in node_modules/.cache/). */
function ownPackage(): { name?: string; version?: string } {
  let dir = new URL('.', import.meta.url);
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'turnbridge') return pkg;
    } catch { /* not here */ }
    const parent = new URL('..', dir);
    if (parent.href === dir.href) return {};
    dir = parent;
  }
}
