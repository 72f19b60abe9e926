/**
 * The doctor's checks at start-up: run once in the background after the platforms started (they
 * never delay serving), each ✗ logged as a warning with its fix, and the result shown in /readyz
 * under `checks` so a broken setup is visible without reading logs.
 */
import type { BridgeConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import { runDoctor } from './run-doctor.js';
import type { CheckResult } from '../check-result.js';

type Line = Pick<CheckResult, 'section' | 'text' | 'fix'>;

/** What /readyz shows under `checks`. */
export type StartupChecks =
  | { state: 'running' }
  | { state: 'done'; ok: boolean; passed: number; failed: Line[]; warnings: Line[] }
  | { state: 'error'; error: string };

export interface StartupCheckRun {
  current(): StartupChecks;
  /** Resolves when the checks are done (tests; start-up never waits for it). */
  done: Promise<void>;
}

/**
 * Security warnings main.ts's checkSecurity has just said at start-up (the sandbox, the access
 * list, /metrics): in /readyz still, but not logged a second time (each warning once).
 */
const SAID_AT_START = [/^agents run unsandboxed/, /^access is /, /^\/metrics /];
const saidAtStart = (c: CheckResult): boolean => c.section === 'Security' && c.status === 'warn' && SAID_AT_START.some((re) => re.test(c.text));

const line = (c: CheckResult): Line => ({ section: c.section, text: c.text, ...(c.fix ? { fix: c.fix } : {}) });

export function startStartupChecks(config: BridgeConfig, env: NodeJS.ProcessEnv, logger: Logger): StartupCheckRun {
  let state: StartupChecks = { state: 'running' };
  const log = logger.child({ component: 'doctor' });
  const done = runDoctor({ config, env }).then((report) => {
    const failed = report.checks.filter((c) => c.status === 'fail');
    const warnings = report.checks.filter((c) => c.status === 'warn');
    state = { state: 'done', ok: report.ok, passed: report.checks.length - failed.length - warnings.length, failed: failed.map(line), warnings: warnings.map(line) };
    for (const c of [...failed, ...warnings.filter((w) => !saidAtStart(w))]) log.warn({ section: c.section, fix: c.fix }, `${c.status === 'fail' ? '✗' : '!'} ${c.text}`);
    log.info({ ok: report.ok, failed: failed.length, warnings: warnings.length }, report.ok ? 'start-up checks passed (turnbridge doctor)' : 'start-up checks found problems: run turnbridge doctor');
  }, (err: unknown) => {
    state = { state: 'error', error: (err as Error)?.message ?? String(err) };
    log.warn({ err }, 'start-up checks could not run');
  });
  return { current: () => state, done };
}
