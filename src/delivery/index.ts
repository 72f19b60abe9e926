/**
 * Delivery: what a turn shows in the chat, through a platform's Surface (surface.ts, the only
 * thing delivery and the bridge know of a platform). createDelivery (create-delivery.ts) opens
 * live replies, posts prompts and one-off messages, and runs crash recovery's rewrites, all
 * through one pool of rate limiters. Its rooms, lowest first: pacing/ (limiters, the attempt
 * policy), message/ (one message posted and edited), stream/ (a natively streamed answer),
 * reply/ (one live reply made of them). Other layers import from here, surface.ts or types.ts.
 */
export { createDelivery } from './create-delivery.js';
export { createSharedLimiters, type SharedLimiters } from './pacing/index.js';
export { EMPTY_REPLY_TEXT, OUTCOME_SEPARATOR } from './reply/index.js';
export { groupFiles } from './message/index.js';
export type * from './surface.js';
export type * from './types.js';
