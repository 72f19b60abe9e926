/**
 * The bot token scopes turnbridge uses, each with what for (slack-app-manifest.yaml lists the
 * same; a test keeps the two in step). `turnbridge doctor` compares the token's scopes to these.
 */
export const SLACK_BOT_SCOPES: Readonly<Record<string, string>> = {
  'app_mentions:read': '@mentions in channels',
  'chat:write': 'post and edit replies, prompts, notices, streaming, agent session status',
  'channels:history': 'follow-ups in threads and membership checks (public channels)',
  'groups:history': 'the same in private channels',
  'im:history': 'DMs to the bot',
  'files:read': 'files shared with a message',
  'files:write': 'files the agent leaves in its outbox, posted in the thread',
  'reactions:write': 'reactions on the message that started a turn',
  'usergroups:read': 'user groups (subteams) named as approvers',
  'users:read': 'show <@U123> mentions as @name',
};

/**
 * The scope that comes with declaring the app an agent (Agents in the app settings, or
 * `features.agent_view` in the manifest): "Declaring an app as an agent adds the assistant:write
 * scope to it" (docs.slack.dev/ai/agent-sessions). Without it the bridge works as before, with no
 * session status and no Slack Stop button, so the doctor says so rather than failing.
 */
export const SLACK_AGENT_SCOPE = 'assistant:write';

/** The bot events the bridge handles (the manifest subscribes to these; a test keeps them in step). */
export const SLACK_BOT_EVENTS: Readonly<Record<string, string>> = {
  app_mention: '@mentions in channels',
  'message.channels': 'follow-ups in public channel threads',
  'message.groups': 'follow-ups in private channel threads',
  'message.im': 'DMs to the bot',
  agent_session_stopped: 'Slack\'s own Stop on a working thread (agent apps)',
  app_home_opened: 'the Messages tab opened: its suggested prompts (agent apps)',
};
