/**
 * Message: one chat message of a reply. A MessageSlot posts it once and edits it toward the
 * latest content through the pacing limiters (message-slot.ts); its life (posting, shown,
 * given up, removing, removed) and the coalescing step are pure functions beside it
 * (message-slot-state.ts); split-message.ts cuts markdown at clean boundaries to fit one message.
 * file-post.ts posts one message of files (the agent's outbox) and looks for it after a failure.
 */
export { MessageSlot, type SlotDeps } from './message-slot.js';
export { closeFences, openFenceAt, splitMessage, splitMessageParts, type SplitPart } from './split-message.js';
export { createFilePosts, groupFiles } from './file-post.js';
