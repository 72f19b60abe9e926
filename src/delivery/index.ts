/**
 * Delivery: live, coalesced, rate-limited replies through a platform Surface.
 * Other layers import only from here.
 */
export { createDelivery, type CreateDeliveryOptions, type DeliveryHandle } from './create-delivery.js';
export { splitMessage, splitMessageParts, type SplitPart } from './split-message.js';
export { createBottleneckLimiter, type LimiterFactory, type RateLimiter } from './bottleneck-limiter.js';
// createSharedLimiters lives in ./shared-limiter.js, imported on demand (it loads ioredis).
export type { SharedBudgetState, SharedLimiters } from './shared-limiter.js';
export { DEFAULT_STATUS, EMPTY_REPLY_TEXT, OUTCOME_SEPARATOR } from './render.js';
export type * from './surface.js';
export type * from './types.js';
export type { EditingVia, ReplyModeKind } from './reply-mode.js';
