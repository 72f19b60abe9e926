/**
 * A good setup for `turnbridge doctor`: fake Slack + fake Discord on loopback, a config file with
 * a Slack channel route, the claude-code profile with a stand-in claude binary and a key, a data
 * dir, closed access with one allowed user and an admin, bubblewrap on. Variants change one thing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { doctorCommand } from '../../../src/cli/doctor.js';
import type { CliIo } from '../../../src/cli/io.js';
import { FakeDiscord, type FakeDiscordOptions } from '../../fakes/discord/index.js';
import { FakeSlack, type FakeSlackOptions } from '../../fakes/slack/index.js';
import { PassThrough } from 'node:stream';

export const ROOT = resolve(process.cwd());
export const CLAUDE_PROFILE = join(ROOT, 'profiles/claude-code/profile.yaml');
export const FAKE_CLAUDE = join(ROOT, 'test/fixtures/doctor/bin/claude');
export const CHANNEL = 'C0DOCTOR1';

/** turnbridge.yaml with one Slack and one Discord channel route, both to the claude-code profile. */
export function routesYaml(slackChannel: string, discordChannel: string): string {
  return `routes:\n  - platform: slack\n    channel: ${slackChannel}\n    profile: ${CLAUDE_PROFILE}\n`
    + `  - platform: discord\n    channel: "${discordChannel}"\n    profile: ${CLAUDE_PROFILE}\n`;
}

export interface DoctorRig {
  slack: FakeSlack;
  discord: FakeDiscord;
  dir: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function makeDoctorRig(opts: { slack?: FakeSlackOptions; discord?: FakeDiscordOptions } = {}): Promise<DoctorRig> {
  // The app as slack-app-manifest.yaml makes it: declared an agent.
  const slack = await FakeSlack.start({ budgets: false, channels: { [CHANNEL]: { member: true } }, agent: true, ...opts.slack });
  const discord = await new FakeDiscord(opts.discord).start();
  const dir = await mkdtemp(join(tmpdir(), 'tb-doctor-'));
  const configFile = join(dir, 'turnbridge.yaml');
  await writeFile(configFile, routesYaml(CHANNEL, discord.world.general.id));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    SLACK_API_URL: slack.apiUrl,
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    TURNBRIDGE_CONFIG: configFile,
    TURNBRIDGE_PROFILE: CLAUDE_PROFILE,
    CLAUDE_BIN: FAKE_CLAUDE,
    ANTHROPIC_API_KEY: 'sk-test-not-a-key',
    TURNBRIDGE_DATA_DIR: join(dir, 'data'),
    TURNBRIDGE_ACCESS: 'closed',
    TURNBRIDGE_ALLOW_USERS: 'slack:U0ALICE,discord:80351110224678912',
    TURNBRIDGE_ADMINS: 'slack:U0ALICE',
    TURNBRIDGE_SANDBOX: 'bwrap',
  };
  return {
    slack, discord, dir, env,
    async close() {
      await slack.close();
      await discord.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface DoctorRun {
  code: number;
  stdout: string;
  /** The ✗ lines, each with its fix line ("✗ text\nfix: …"). */
  failures: string[];
  /** The ! lines. */
  warnings: string[];
}

/** Runs the real `doctor` command function with this environment (cwd stays the repo: no .env there in tests). */
export async function runDoctorCommand(env: Record<string, string>, args: string[] = []): Promise<DoctorRun> {
  const stdout = new PassThrough();
  let text = '';
  stdout.setEncoding('utf8').on('data', (d: string) => { text += d; });
  const io: CliIo = { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env };
  const code = await doctorCommand(args, io);
  const lines = text.split('\n');
  const failures: string[] = [];
  const warnings: string[] = [];
  lines.forEach((line, i) => {
    const fix = lines[i + 1]?.trim().startsWith('fix: ') ? `\n${lines[i + 1]!.trim()}` : '';
    if (line.startsWith('  ✗ ')) failures.push(`${line.trim()}${fix}`);
    if (line.startsWith('  ! ')) warnings.push(`${line.trim()}${fix}`);
  });
  return { code, stdout: text, failures, warnings };
}
