/**
 * Slack: the @slack/bolt app (platform.ts: Socket Mode or HTTP, connected in the background and
 * reconnected with back-off, Bolt's logs into ours) whose events become InboundMessages (events.ts,
 * files.ts) and whose clicks become ActionEvents (clicker.ts, prompt-actions.ts, agent-events.ts
 * for Slack's own Stop, and a DM's suggested prompts); the Slack Surface (surface.ts, with the
 * user groups a person is in: Block Kit rendering in blocks.ts and prompt-blocks.ts, native
 * streaming in stream.ts where a route's options.streaming allows it, agent sessions in
 * sessions.ts), the Web API's errors and message ids (web-api.ts); its config, its scopes and its
 * doctor checks.
 */
export { createSlackPlatform, describeConnectFailure, type SlackPlatform } from './platform.js';
export { createSlackSurface, SLACK_LIMITS, type SlackSurface, type SlackSurfaceOptions } from './surface.js';
export { parseSlackConfig, SLACK_STREAMING_MODES, type SlackConfig, type SlackMode, type SlackStreaming } from './config.js';
export { createSlackStreaming, SLACK_STREAM_LIMITS, STREAM_MAX_CHARS } from './stream.js';
export { renderMessage, ACTION_STOP } from './blocks.js';
export { renderPrompt, renderForm, PROMPT_ACTION_IDS, FORM_CALLBACK } from './prompt-blocks.js';
export { normalizeInboundText, mentionsUser } from './events.js';
export { encodeMessageId, decodeMessageId } from './web-api.js';
