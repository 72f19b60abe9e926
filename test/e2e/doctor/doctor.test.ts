/**
 * `turnbridge doctor` against the fake Slack and fake Discord: the good setup passes every check
 * (exit 0); each broken variant shows exactly its ✗ line with the fix, and exits 1.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_SCOPES } from '../../fakes/slack/index.js';
import { CHANNEL, CLAUDE_PROFILE, ROOT, makeDoctorRig, routesYaml, runDoctorCommand, type DoctorRig } from './doctor-rig.js';
import { runCli } from '../../integration/cli/cli-process.js';
import { startRedisServer } from '../../fakes/redis-server.js';
import { TEST_BUS_KEY } from '../../fixtures/bus-key.js';

describe('turnbridge doctor', () => {
  let rig: DoctorRig;
  before(async () => { rig = await makeDoctorRig(); });
  after(async () => { await rig.close(); });

  /** Runs with one change; asserts exactly one ✗ line matching `line` and a fix matching `fix`. */
  async function exactlyOne(change: Record<string, string>, line: RegExp, fix: RegExp, r?: DoctorRig): Promise<void> {
    const run = await runDoctorCommand({ ...(r ?? rig).env, ...change });
    assert.equal(run.code, 1, run.stdout);
    assert.equal(run.failures.length, 1, `exactly one ✗ line:\n${run.stdout}`);
    const [text, fixLine] = run.failures[0]!.split('\n');
    assert.match(text!, line);
    assert.match(fixLine ?? '', fix);
  }

  it('a good setup: every line ✓, exit 0', async () => {
    const run = await runDoctorCommand(rig.env);
    assert.equal(run.code, 0, run.stdout);
    assert.deepEqual(run.failures, []);
    assert.deepEqual(run.warnings, []);
    for (const expected of [
      /^Slack$/m, /✓ bot token valid: turnbridge in Fake Team \(T0FAKE\)/, /✓ token scopes: all 10 needed are granted/,
      /✓ app token opens Socket Mode \(apps\.connections\.open\)/, new RegExp(`✓ bot is a member of ${CHANNEL}`),
      /✓ declared an agent \(assistant:write\): threads show Slack's "Working…" status and its Stop button while a turn runs, if the app subscribes to agent_session_stopped/,
      /^Discord$/m, /✓ bot token valid: /, /✓ Message Content intent granted/,
      /✓ invite URL \(exactly the permissions needed\): https:\/\/discord\.com\/oauth2\/authorize\?client_id=\d+&scope=bot&permissions=309237746752/,
      /✓ in server .+ with the permissions it needs/, /✓ bot can see channel #general \(\d+\) named in routes/,
      /✓ profiles\/claude-code\/profile\.yaml loads/, /✓ profiles\/claude-code\/profile\.yaml: claude 2\.0\.14 \(Claude Code\)/,
      /✓ profiles\/claude-code\/profile\.yaml: ANTHROPIC_API_KEY is set/, /agent workspace .+ (is writable|does not exist yet; the bridge creates it at start)/,
      /✓ embedded store: .+ will be created on start/,
      /✓ access is closed: 2 allowed/, /✓ admins: slack:U0ALICE/, /✓ agents run sandboxed with bubblewrap; unix sockets refused by a seccomp filter$/m,
      /✓ \/metrics is served on loopback only \(HOST 127\.0\.0\.1\), no token needed$/m,
      /✓ \d+ of \d+ checks passed\n$/,
    ]) assert.match(run.stdout, expected);
    assert.ok(!run.stdout.includes(rig.env.SLACK_BOT_TOKEN!) && !run.stdout.includes(rig.env.DISCORD_TOKEN!), 'no token is printed');
  });

  it('a token given only as SLACK_BOT_TOKEN_FILE / DISCORD_TOKEN_FILE is read as start reads it', async () => {
    const { SLACK_BOT_TOKEN, DISCORD_TOKEN, ...rest } = rig.env;
    writeFileSync(join(rig.dir, 'slack-token'), `${SLACK_BOT_TOKEN}\n`);
    writeFileSync(join(rig.dir, 'discord-token'), `${DISCORD_TOKEN}\n`);
    const run = await runDoctorCommand({ ...rest, SLACK_BOT_TOKEN_FILE: join(rig.dir, 'slack-token'), DISCORD_TOKEN_FILE: join(rig.dir, 'discord-token') });
    assert.equal(run.code, 0, run.stdout);
    assert.deepEqual(run.failures, []);
    assert.match(run.stdout, /✓ bot token valid: turnbridge in Fake Team \(T0FAKE\)/);
    assert.match(run.stdout, /^Discord$/m);
    assert.ok(!run.stdout.includes(SLACK_BOT_TOKEN!), 'no token is printed');
  });

  it('missing scope: the scope is named, with where to add it', async () => {
    const r = await makeDoctorRig({ slack: { scopes: MANIFEST_SCOPES.filter((s) => s !== 'reactions:write') } });
    try {
      await exactlyOne({}, /^✗ token lacks scope reactions:write \(reactions on the message that started a turn\)$/,
        /^fix: add them under OAuth & Permissions > Bot Token Scopes .*Reinstall to Workspace$/, r);
    } finally { await r.close(); }
  });

  it('an app not declared an agent: a warning (not a failure) saying what to enable', async () => {
    const r = await makeDoctorRig({ slack: { agent: false } });
    try {
      const run = await runDoctorCommand(r.env);
      assert.equal(run.code, 0, run.stdout);
      assert.deepEqual(run.failures, []);
      const [line, fix] = run.warnings.find((w) => w.includes('not declared an agent'))!.split('\n');
      assert.match(line!, /^! not declared an agent \(no assistant:write\): threads show no Slack "Working…" status or Slack Stop button; replies and our own Stop button work$/);
      assert.match(fix!, /Agents -> on .*features\.agent_view.*agent_session_stopped.*Reinstall to Workspace$/);
    } finally { await r.close(); }
  });

  it('bad app token: Socket Mode cannot open', async () => {
    await exactlyOne({ SLACK_APP_TOKEN: 'xapp-1-wrong' }, /^✗ SLACK_APP_TOKEN cannot open Socket Mode \(invalid_auth\)$/,
      /^fix: generate an App-Level Token with connections:write/);
  });

  it('intent off: Message Content not granted, with the portal switch to turn', async () => {
    const r = await makeDoctorRig({ discord: { allowMessageContent: false } });
    try {
      await exactlyOne({}, /^✗ Message Content intent off: follow-ups in the bot's threads are ignored unless they mention the bot$/,
        /^fix: Developer Portal > your application > Bot > Privileged Gateway Intents > turn on "Message Content Intent"/, r);
    } finally { await r.close(); }
  });

  it('CLI missing: the agent CLI is not installed', async () => {
    await exactlyOne({ CLAUDE_BIN: '/nonexistent/bin/claude' },
      /^✗ profiles\/claude-code\/profile\.yaml: the claude CLI is not installed \("\/nonexistent\/bin\/claude" not found\)$/,
      /^fix: npm i -g @anthropic-ai\/claude-code, or set CLAUDE_BIN to its path$/);
  });

  it('the claude-code-plan profile is checked like claude-code (its CLI and login)', async () => {
    const plan = join(ROOT, 'profiles/claude-code-plan/profile.yaml');
    const file = join(rig.dir, 'turnbridge-plan.yaml');
    writeFileSync(file, routesYaml(CHANNEL, rig.discord.world.general.id).replaceAll(CLAUDE_PROFILE, plan));
    await exactlyOne({ TURNBRIDGE_CONFIG: file, TURNBRIDGE_PROFILE: plan, ANTHROPIC_API_KEY: '' },
      /^✗ profiles\/claude-code-plan\/profile\.yaml: claude is not logged in and no ANTHROPIC_API_KEY \/ CLAUDE_CODE_OAUTH_TOKEN is set$/, /^fix: run `claude` once and sign in/);
  });

  it('store not writable: the data dir cannot be made', async () => {
    const file = join(rig.dir, 'a-file');
    writeFileSync(file, 'x');
    await exactlyOne({ TURNBRIDGE_DATA_DIR: join(file, 'data') }, /^✗ embedded store: .+\/a-file\/data is not writable \(.+a-file is a file\)$/,
      /^fix: set TURNBRIDGE_DATA_DIR .* or set REDIS_URL$/);
  });

  it('access open: anyone could start an agent', async () => {
    await exactlyOne({ TURNBRIDGE_ACCESS: 'open' }, /^✗ access is open: anyone who can message the bot starts an agent/,
      /^fix: set TURNBRIDGE_ACCESS=closed .*TURNBRIDGE_ALLOW_USERS/);
  });

  it('more broken variants, each exactly one line: bad bot token, bot not in the channel, logged out, permissions, unreachable Redis', async () => {
    const bad = await runDoctorCommand({ ...rig.env, SLACK_BOT_TOKEN: 'xoxb-wrong' });
    assert.equal(bad.code, 1);
    assert.deepEqual(bad.failures.map((f) => f.split('\n')[0]), ['✗ Slack rejected SLACK_BOT_TOKEN (invalid_auth)'], bad.stdout);
    await exactlyOne({ TURNBRIDGE_CONFIG: writeConfig(rig, 'C0ELSEWHERE', rig.discord.world.general.id) }, /^✗ bot is not in channel C0ELSEWHERE \(channel_not_found\)$/, /^fix: in that channel type \/invite @turnbridge/);
    await exactlyOne({ TURNBRIDGE_CONFIG: writeConfig(rig, CHANNEL, '123456789012345678') }, /^✗ bot cannot see channel 123456789012345678 named in routes \(404\)$/, /^fix: check the channel id .*View Channel/);
    await exactlyOne({ ANTHROPIC_API_KEY: '' }, /^✗ profiles\/claude-code\/profile\.yaml: claude is not logged in and no ANTHROPIC_API_KEY \/ CLAUDE_CODE_OAUTH_TOKEN is set$/, /^fix: run `claude` once and sign in/);
    await exactlyOne({ REDIS_URL: 'redis://127.0.0.1:1', TURNBRIDGE_BUS_KEY: TEST_BUS_KEY }, /^✗ Redis at redis:\/\/127\.0\.0\.1:1 is not reachable/, /^fix: start Redis or fix REDIS_URL/);
    const r = await makeDoctorRig({ discord: { guildPermissions: String((1n << 10n) | (1n << 11n)) } });
    try {
      await exactlyOne({}, /^✗ in server .+ without Send Messages in Threads, Create Public Threads, Read Message History, Add Reactions, Attach Files$/, /^fix: re-invite with https:\/\/discord\.com\/oauth2\/authorize/, r);
    } finally { await r.close(); }
  });

  it('security warnings do not fail: nobody listed, unsandboxed; a sandbox that cannot run does', async () => {
    const nobody = await runDoctorCommand({ ...rig.env, TURNBRIDGE_ALLOW_USERS: '', TURNBRIDGE_SANDBOX: 'off' });
    assert.equal(nobody.code, 0, nobody.stdout);
    assert.deepEqual(nobody.failures, []);
    assert.deepEqual(nobody.warnings.map((w) => w.split('\n')[0]), [
      '! access is closed and nobody is listed: only people granted with `turnbridge allow` and admins get answers',
      '! agents run unsandboxed as root: they can read what that user can',
    ].map((w) => (process.getuid?.() === 0 ? w : w.replace('as root', "as the bridge's user"))));
    const bin = join(rig.dir, 'bin-without-bwrap');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    await exactlyOne({ PATH: bin }, /^✗ sandbox bwrap is set but bwrap is not installed$/, /^fix: install bubblewrap \(Debian: apt-get install bubblewrap\)/);
    // auto (the default) where the box cannot start (a bwrap that fails as in a container under
    // Docker's default seccomp profile): a warning, not a failure, saying exactly what to change.
    const docker = join(rig.dir, 'bin-bwrap-in-docker');
    mkdirSync(docker);
    symlinkSync(process.execPath, join(docker, 'node'));
    writeFileSync(join(docker, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n', { mode: 0o755 });
    const auto = await runDoctorCommand({ ...rig.env, PATH: `${docker}:/usr/bin:/bin`, TURNBRIDGE_SANDBOX: 'auto' });
    assert.equal(auto.code, 0, auto.stdout);
    const line = auto.warnings.find((w) => w.includes('agents run unsandboxed'));
    assert.ok(line, auto.stdout);
    const [text, fix] = line.split('\n');
    assert.equal(text, `! agents run unsandboxed: the sandbox cannot start here (${join(docker, 'bwrap')} cannot make the agent box here: bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.)`);
    assert.match(fix ?? '', /^fix: let bubblewrap make user namespaces: .*kernel\.unprivileged_userns_clone=1.*--security-opt seccomp=unconfined.*or set TURNBRIDGE_SANDBOX=off/);
  });

  it('bound off loopback: /metrics without TURNBRIDGE_METRICS_TOKEN is a warning with its fix (exit 0); with the token a ✓', async () => {
    const open = await runDoctorCommand({ ...rig.env, HOST: '0.0.0.0' });
    assert.equal(open.code, 0, open.stdout);
    assert.deepEqual(open.warnings, [
      '! /metrics and the /readyz details are open to anyone who reaches HOST 0.0.0.0 (off loopback, no TURNBRIDGE_METRICS_TOKEN)\n'
      + 'fix: set TURNBRIDGE_METRICS_TOKEN_FILE to a file holding a token (openssl rand -hex 16) and give Prometheus that file: authorization: { credentials_file: … }',
    ]);
    const file = join(rig.dir, 'metrics-token');
    writeFileSync(file, 'doctor-metrics-token-0123456789\n');
    const guarded = await runDoctorCommand({ ...rig.env, HOST: '0.0.0.0', TURNBRIDGE_METRICS_TOKEN_FILE: file });
    assert.equal(guarded.code, 0, guarded.stdout);
    assert.deepEqual(guarded.warnings, []);
    assert.match(guarded.stdout, /✓ \/metrics and the \/readyz details need the bearer token TURNBRIDGE_METRICS_TOKEN$/m);
    assert.ok(!guarded.stdout.includes('doctor-metrics-token-0123456789'), 'the token is not printed');
    writeFileSync(file, '');
    const empty = await runDoctorCommand({ ...rig.env, HOST: '0.0.0.0', TURNBRIDGE_METRICS_TOKEN_FILE: file }).catch((e: Error) => e);
    assert.ok(empty instanceof Error && /TURNBRIDGE_METRICS_TOKEN_FILE: .* is empty/.test(empty.message), String(empty));
  });

  it('a profile restricted on one route and reached with fewer restrictions elsewhere: a warning per place, saying what to write (exit 0)', async () => {
    const file = join(rig.dir, 'turnbridge-restricted.yaml');
    writeFileSync(file, `routes:\n  - platform: slack\n    channel: ${CHANNEL}\n    profile: ${CLAUDE_PROFILE}\n    allow_users: [U0ALICE]\n    approvers_only: true\n`
      + `  - platform: discord\n    channel: "${rig.discord.world.general.id}"\n    profile: ${CLAUDE_PROFILE}\n`);
    const run = await runDoctorCommand({ ...rig.env, TURNBRIDGE_CONFIG: file });
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, /^Routes$/m);
    assert.deepEqual(run.warnings.map((w) => w.split('\n')[0]!.replace(/\S*profiles\/claude-code\/profile\.yaml/, 'P')), [
      '! P is restricted on routes[0] but also reached through routes[1] without allow_users: [slack:U0ALICE], approvals: approvers: the bridge applies them there too',
      '! P is restricted on routes[0] but also reached through channels and DMs no route names (default_profile) without allow_users: [slack:U0ALICE], approvals: approvers: the bridge applies them there too',
    ]);
    assert.match(run.warnings[0]!, /\nfix: to make it explicit, write allow_users: \[slack:U0ALICE\], approvals: approvers on routes\[1\]; or give routes\[0\] a profile of its own/);
  });

  it('HTTP mode: no app token, a signing secret: the URL Slack must reach', async () => {
    const run = await runDoctorCommand({ ...rig.env, SLACK_APP_TOKEN: '', SLACK_SIGNING_SECRET: 'secret', PORT: '3999' });
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, /✓ HTTP mode: SLACK_SIGNING_SECRET set; Slack must reach POST https:\/\/<your public host>\/slack\/events, served here at http:\/\/127\.0\.0\.1:3999\/slack\/events/);
    assert.ok(!run.stdout.includes('apps.connections.open'));
  });

  it('Redis: a reachable redis-server answers the probe', async () => {
    const redis = await startRedisServer();
    try {
      const run = await runDoctorCommand({ ...rig.env, REDIS_URL: redis.url, TURNBRIDGE_BUS_KEY: TEST_BUS_KEY });
      assert.equal(run.code, 0, run.stdout);
      assert.match(run.stdout, new RegExp(`✓ Redis at ${redis.url.replace(/[/.]/g, '\\$&')}/? answers \\(write, read, delete\\)`));
      assert.match(run.stdout, /REDIS_URL has no password, so any process that can reach that Redis can read the bridge's state/, 'a Redis without a password is warned');
      assert.match(run.stdout, /give Redis a password \(requirepass\) or an ACL user/);
    } finally { redis.stop(); }
  });

  it('--json: one object with ok and every check; warnings do not fail the exit status', async () => {
    const run = await runDoctorCommand({ ...rig.env, TURNBRIDGE_SANDBOX: 'off' }, ['--json']);
    assert.equal(run.code, 0, run.stdout);
    const out = JSON.parse(run.stdout) as { ok: boolean; checks: Array<{ section: string; status: string; text: string; fix?: string }> };
    assert.equal(out.ok, true);
    assert.deepEqual([...new Set(out.checks.map((c) => c.section))], ['Config', 'Slack', 'Discord', 'Profiles', 'Routes', 'Store', 'Security']);
    const warned = out.checks.filter((c) => c.status === 'warn');
    assert.equal(warned.length, 1);
    assert.match(warned[0]!.text, /agents run unsandboxed/);
    assert.match(warned[0]!.fix ?? '', /TURNBRIDGE_SANDBOX=auto \(the default\) or bwrap/);
    for (const c of out.checks) assert.equal(c.fix === undefined, c.status === 'pass', JSON.stringify(c));
  });
});

describe('turnbridge doctor as a process', () => {
  it('reads .env in the working directory as start does; --json; exit status 1 on a ✗', async () => {
    const rig = await makeDoctorRig();
    try {
      const { PATH, HOME, ...settings } = rig.env;
      const dotenv = Object.entries({ ...settings, TURNBRIDGE_ACCESS: 'open' }).map(([k, v]) => `${k}=${v}`).join('\n');
      writeFileSync(join(rig.dir, '.env'), `${dotenv}\n`);
      const clean: Record<string, string> = { PATH: PATH!, HOME: HOME! };
      const r = await runCli(['doctor', '--json'], { cwd: rig.dir, env: clean });
      assert.equal(r.code, 1, r.stderr);
      const out = JSON.parse(r.stdout) as { ok: boolean; checks: Array<{ status: string; text: string }> };
      assert.equal(out.ok, false);
      assert.deepEqual(out.checks.filter((c) => c.status === 'fail').map((c) => c.text), ['access is open: anyone who can message the bot starts an agent that can run commands']);
      assert.ok(out.checks.some((c) => c.text.startsWith('bot token valid: turnbridge in Fake Team')), 'the Slack token came from .env');
    } finally { await rig.close(); }
  });
});

function writeConfig(rig: DoctorRig, slackChannel: string, discordChannel: string): string {
  const file = join(rig.dir, `turnbridge-${slackChannel}-${discordChannel}.yaml`);
  writeFileSync(file, routesYaml(slackChannel, discordChannel));
  return file;
}
