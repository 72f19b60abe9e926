/**
 * Turns: one chat message's way from accepted to finished. accept-message.ts takes a message
 * (commands, access, route, the turn's first commits); turn.ts is the Turn object (its reply,
 * recorder and reactions); turn-registry.ts holds every turn and its phase union; turn-queue.ts
 * hands out agent slots; conversation-order.ts keeps one turn at a time per conversation across
 * replicas; execute-turn.ts runs the agent and writes the outcome; conversation-dirs.ts and
 * conversation-files.ts give a conversation its workspace, HOME and files; outbox.ts and
 * outbox-files.ts post the files the agent leaves in its outbox; worktree.ts (git.ts, its
 * commands in worktree-commands.ts) runs a route's conversations in its project or a git
 * worktree of it each; stop-control.ts and rerun.ts
 * answer Stop (our button, `stop`, a platform's own Stop on a conversation) and Run again;
 * conversation-activity.ts counts how each conversation's work stands for platforms that show
 * it (Slack's agent session status); recovery.ts finishes what a crashed bridge left
 * (rebuild-message.ts makes a stored message live again). context.ts is what they share.
 */
export { acceptMessage } from './accept-message.js';
export type { BridgeContext, RunTurn } from './context.js';
export { createConversationActivities, type ConversationActivities } from './conversation-activity.js';
export { conversationPlaces, prepareRoots } from './conversation-dirs.js';
export { INTERRUPTED_MESSAGE } from './execute-turn.js';
export { recover, type RecoveryReport } from './recovery.js';
export { handleRerunAction } from './rerun.js';
export { handleStopAction, stopConversation } from './stop-control.js';
export type { Turn } from './turn.js';
export { createTurnQueue } from './turn-queue.js';
export { createTurnRegistry, holdsSlot, isOver } from './turn-registry.js';
export { isIdle, pruneWorktrees, worktreeDirty, type PruneReport } from './worktree.js';
