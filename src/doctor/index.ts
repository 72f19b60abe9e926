/** `turnbridge doctor`: a setup checked line by line, each failure with its fix. */
export { runDoctor, type DoctorOptions } from './run-doctor.js';
export { formatReport, formatLine, reportJson } from './format.js';
export type { CheckResult, CheckStatus, DoctorReport } from './types.js';
export { preflightProfiles, preflightProfile, findProfileCommand } from './profile-preflight.js';
export { startStartupChecks, type StartupCheckRun, type StartupChecks } from './startup-checks.js';
export { metricsExposure, type MetricsExposure } from './security-checks.js';
