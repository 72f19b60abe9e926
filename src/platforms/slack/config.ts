/**
 * The Slack settings (SLACK_* and the `slack:` section of turnbridge.yaml) are read and checked
 * with every other setting, in config/schema.ts; loadConfig hands the result to this platform as
 * `config.platforms.slack`. Tokens are kept there and never logged.
 */
export type { SlackConfig, SlackMode, SlackStreaming } from '../../config/types.js';
export { SLACK_STREAMING_MODES } from '../../config/schema.js';
// Every Slack route's `options.streaming` is checked with the rest of the configuration, before anything starts.
export { checkSlackRouteOptions, parseSlackConfig } from '../../config/platform-configs.js';
