/**
 * Runs every section of the doctor against one configuration: config (the platform sections and
 * tokens too, read as start reads them), Slack, Discord (only those with tokens), profiles,
 * routes, store, security. Platform checks load their platform's module only when that platform is on.
 */
import type { BridgeConfig } from '../config/types.js';
import { choosePlatforms, loadConfig } from '../config/index.js';
import { problemLines } from '../errors.js';
import { profileChecks } from './profile-checks.js';
import { routeChecks } from './route-checks.js';
import { securityChecks } from './security-checks.js';
import { storeChecks } from './store-checks.js';
import { worktreeChecks } from './worktree-checks.js';
import { fail, pass, type CheckResult, type DoctorReport } from '../check-result.js';

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  /** Config file (TURNBRIDGE_CONFIG wins). Ignored when `config` is given. */
  configFile?: string;
  /** An already loaded configuration (start-up). */
  config?: BridgeConfig;
}

function report(checks: CheckResult[]): DoctorReport {
  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}

/** A section that throws (a bug, an odd answer) becomes one ✗ line rather than ending the doctor. */
async function guarded(section: string, fn: () => Promise<CheckResult[]> | CheckResult[]): Promise<CheckResult[]> {
  try {
    return await fn();
  } catch (e) {
    return [fail(section, `the ${section} checks failed: ${(e as Error)?.message ?? String(e)}`, 'see the message; fix the setting it names')];
  }
}

function configError(section: string, e: unknown): CheckResult {
  const { text, fix } = problemLines(e as Error & { hint?: string });
  return fail(section, `configuration: ${text}`, fix ?? 'see turnbridge.example.yaml and docs/operations.md');
}

export async function runDoctor(opts: DoctorOptions): Promise<DoctorReport> {
  const { env } = opts;
  let config: BridgeConfig;
  const checks: CheckResult[] = [];
  if (opts.config) {
    config = opts.config;
  } else {
    try {
      config = loadConfig({ env, file: opts.configFile });
    } catch (e) {
      return report([configError('Config', e)]);
    }
    checks.push(pass('Config', config.file ? `config file ${config.file} is valid` : 'no turnbridge.yaml: running on environment settings and defaults'));
  }
  const wanted = choosePlatforms(config);
  const { slack, discord } = config.platforms;
  if (slack) checks.push(...(await guarded('Slack', async () => (await import('../platforms/slack/doctor.js')).slackDoctorChecks(slack, config))));
  if (discord) checks.push(...(await guarded('Discord', async () => (await import('../platforms/discord/doctor.js')).discordDoctorChecks(discord))));
  if (!wanted.slack && !wanted.discord) {
    checks.push(pass('Platforms', 'no SLACK_BOT_TOKEN or DISCORD_TOKEN: `turnbridge start` serves the local chat page (docs/slack.md, docs/discord.md to connect one)'));
  }
  checks.push(...(await guarded('Profiles', () => profileChecks(config, env))));
  checks.push(...(await guarded('Routes', () => routeChecks(config))));
  checks.push(...(await guarded('Worktrees', () => worktreeChecks(config))));
  checks.push(...(await guarded('Store', () => storeChecks(config))));
  checks.push(...(await guarded('Security', () => securityChecks(config, env, wanted.slack || wanted.discord))));
  return report(checks);
}
