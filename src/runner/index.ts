export type { TurnInput, RunHandlers, RunLogger, RunOptions, RunResult, ConversationDirs } from './types.js';
export { run, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_REPLY_BYTES } from './run.js';
export { processStartTime, endRecordedGroup, type EndOutcome } from './process-identity.js';
export { checkAgentCwd, holds, sandboxArgs, type LaunchPolicy } from './launch-policy.js';
export { sandboxProblem, decideSandbox, sandboxFix, type SandboxMode, type SandboxDecision } from './sandbox-probe.js';
export { loadEgressProxy } from './sandbox/egress.js';
