/**
 * The runner: one agent process per turn (run.ts). The launch resolved and checked against the
 * bridge's launch policy (launch-policy.ts: workspace, protected paths, the box), the process in
 * its own group (process-group.ts) recorded so a restart can end it (process-identity.ts), its
 * stdout split into lines (line-splitter.ts) and read by the wire rules (turn-state.ts), stderr's
 * tail kept for errors; sandbox/ decides whether the box is in force (its start-up probe) and
 * builds it, with its seccomp stage and egress proxy, and places the bridge's own commands in
 * an agent's places (git in a worktree) in it too; find-command.ts finds executables as spawn
 * does. Knows nothing of chat.
 */
export type { TurnInput, RunHandlers, RunLogger, RunOptions, RunResult, ConversationDirs } from './types.js';
export { run, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_REPLY_BYTES } from './run.js';
export { processStartTime, endRecordedGroup, onThisHost, processHost, type EndOutcome, type ProcessHost } from './process-identity.js';
export { checkAgentCwd, holds, launchPolicyOf, type LaunchPolicy, type SandboxMode } from './launch-policy.js';
export { findCommand } from './find-command.js';
export { sandboxArgs, sandboxProblem, decideSandbox, sandboxInForce, sandboxFix, stageFix, stageLine, loadEgressProxy, placeCommand, type BoxExtras, type SandboxDecision, type BoxSetup, type CommandPlace } from './sandbox/index.js';
