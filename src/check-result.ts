/**
 * One checked thing of a setup, as `turnbridge doctor` lists it: a line with ✓ or ✗ and, when ✗,
 * the one thing to do. The doctor's own checks (src/doctor/) and the platforms' (Slack's and
 * Discord's doctor.ts, which the doctor loads on demand) make them; the same checks run at
 * start-up and feed /readyz.
 */

/**
 * pass ✓; fail ✗ (the setup does not work as configured: exit status 1); warn ! (works, with a
 * risk worth knowing, such as agents running unsandboxed: exit status unchanged).
 */
export type CheckStatus = 'pass' | 'warn' | 'fail';

/** One checked thing. `fix` is present exactly when the status is not pass. */
export interface CheckResult {
  /** Heading the line is listed under: "Slack", "Discord", "Profiles", "Store", "Security". */
  section: string;
  status: CheckStatus;
  /** What was checked and what was found, one line ("bot token valid: turnbridge in Acme (T123)"). */
  text: string;
  /** What to do, one line, when the status is warn or fail. */
  fix?: string;
}

export interface DoctorReport {
  /** No check failed (warnings allowed). */
  ok: boolean;
  checks: CheckResult[];
}

export function pass(section: string, text: string): CheckResult {
  return { section, status: 'pass', text };
}

export function fail(section: string, text: string, fix: string): CheckResult {
  return { section, status: 'fail', text, fix };
}

export function warn(section: string, text: string, fix: string): CheckResult {
  return { section, status: 'warn', text, fix };
}
