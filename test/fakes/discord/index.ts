export { FakeDiscord, type FakeDiscordOptions, type FakeInteraction, type FakeModal } from './fake-discord.js';
export type { RecordedCall } from './rest.js';
export type { FakeUser, FakeMessage, FakeChannel, FakeAttachment, FakeComponent } from './payloads.js';
export { INTENTS } from './gateway.js';
export { snowflake } from './snowflake.js';
