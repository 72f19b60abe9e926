export { FakeSlack, TEAM, BOT_USER, BOT_ID, APP_ID, MANIFEST_SCOPES, MANIFEST_EVENTS } from './fake-slack.js';
export type { FakeSlackOptions, CallRecord, FakeFile } from './fake-slack.js';
export type { SharedFile } from './files-api.js';
export type { FakeMessage } from './web-api.js';
export { SLACK_BUDGETS, type MethodBudget } from './rate-limits.js';
export { signSlackRequest } from './signing.js';
export { STREAM_MARKDOWN_LIMIT } from './stream-api.js';
export { SESSION_STATUSES, type FakeSession, type SessionStatus, type SuggestedPromptsCall } from './agent-sessions.js';
export { visibleText, contextLines, buttons } from './message-views.js';
