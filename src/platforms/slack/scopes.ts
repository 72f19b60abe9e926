/**
 * The bot token scopes turnbridge uses, each with what for (slack-app-manifest.yaml lists the
 * same; a test keeps the two in step). `turnbridge doctor` compares the token's scopes to these.
 */
export const SLACK_BOT_SCOPES: Readonly<Record<string, string>> = {
  'app_mentions:read': '@mentions in channels',
  'chat:write': 'post and edit replies, prompts, notices, streaming',
  'channels:history': 'follow-ups in threads and membership checks (public channels)',
  'groups:history': 'the same in private channels',
  'im:history': 'DMs to the bot',
  'files:read': 'files shared with a message',
  'files:write': 'files the agent leaves in its outbox, posted in the thread',
  'reactions:write': 'reactions on the message that started a turn',
  'usergroups:read': 'user groups (subteams) named as approvers',
  'users:read': 'show <@U123> mentions as @name',
};
