/**
 * Reply: one live reply of a turn. LiveReply (live-reply.ts) turns the agent's partials into
 * messages: its mode union (reply-mode.ts: editing, streaming, parked, finished), the messages in
 * thread order (reply-parts.ts), what each shows (render.ts), permission prompts posted below it
 * (prompt-post.ts), and the one-off operations of crash recovery (recovery-ops.ts). It builds on
 * message/, stream/ and pacing/; the Surface does the platform's part.
 */
export { createLiveReply } from './live-reply.js';
export { postPrompt } from './prompt-post.js';
export { createRecoveryOps } from './recovery-ops.js';
export { DEFAULT_STATUS, EMPTY_REPLY_TEXT, OUTCOME_SEPARATOR } from './render.js';
