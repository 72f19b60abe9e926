/**
 * The doctor: a setup checked line by line, each failure with its fix (run-doctor.ts), for
 * `turnbridge doctor` and, the same checks, at start-up for /readyz (startup-checks.ts). Config,
 * profiles (profile-preflight.ts also stops a start), routes, worktrees (worktree-checks.ts), the store, file modes, Redis
 * transport and security; Slack's and Discord's checks are their own (platforms/slack/doctor.ts, platforms/discord/doctor.ts),
 * loaded on demand. Each line is a CheckResult (src/check-result.ts).
 */
export { runDoctor, type DoctorOptions } from './run-doctor.js';
export { formatReport, formatLine, reportJson } from './format.js';
export type { CheckResult, CheckStatus, DoctorReport } from '../check-result.js';
export { preflightProfiles, preflightProfile, findProfileCommand } from './profile-preflight.js';
export { startStartupChecks, type StartupCheckRun, type StartupChecks } from './startup-checks.js';
export { metricsExposure, type MetricsExposure } from './security-checks.js';
