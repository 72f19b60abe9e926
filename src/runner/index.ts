/**
 * The runner: one agent process per turn (run.ts). The launch resolved and checked against the
 * bridge's launch policy (launch-policy.ts: workspace, protected paths, the box), the process in
 * its own group (process-group.ts) recorded so a restart can end it (process-identity.ts), its
 * stdout split into lines (line-splitter.ts) and read by the wire rules (turn-state.ts), stderr's
 * tail kept for errors; sandbox/ builds the bubblewrap box and its egress proxy, and the start-up
 * probe decides whether the box is in force (sandbox-probe.ts). Knows nothing of chat.
 */
export type { TurnInput, RunHandlers, RunLogger, RunOptions, RunResult, ConversationDirs } from './types.js';
export { run, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_REPLY_BYTES } from './run.js';
export { processStartTime, endRecordedGroup, type EndOutcome } from './process-identity.js';
export { checkAgentCwd, holds, sandboxArgs, type LaunchPolicy } from './launch-policy.js';
export { sandboxProblem, decideSandbox, sandboxFix, type SandboxMode, type SandboxDecision } from './sandbox-probe.js';
export { loadEgressProxy } from './sandbox/index.js';
