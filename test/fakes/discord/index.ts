export { FakeDiscord, type FakeDiscordOptions, type FakeInteraction } from './fake-discord.js';
export type { RecordedCall } from './rest.js';
export type { FakeUser, FakeMessage, FakeChannel, FakeAttachment } from './payloads.js';
export { INTENTS } from './gateway.js';
export { snowflake } from './snowflake.js';
