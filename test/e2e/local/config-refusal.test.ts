/**
 * Every setting is checked before anything is created: a mistake in the `slack:` or `discord:`
 * section of turnbridge.yaml, or a Slack token of the wrong kind, stops `turnbridge start` (the
 * real command) with exit 1, the file or variable, the field and the fix, and leaves its directory
 * as it found it: no data dir (the store), no workspace, nothing listening. `run` and the doctor
 * read the same configuration and print the same words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ECHO, runCli } from '../../integration/cli/cli-process.js';
import { startRefused } from './refused-start.js';

// Tokens of the right shape for a Slack (or Discord) that is never reached: the start must stop first.
const SLACK = { SLACK_BOT_TOKEN: 'xoxb-1-2-abcdef', SLACK_APP_TOKEN: 'xapp-1-A1-2-abc', SLACK_API_URL: 'http://127.0.0.1:9/api/' };
const DISCORD = { DISCORD_TOKEN: 'abc.def.ghi', DISCORD_API_URL: 'http://127.0.0.1:9/api' };

const CASES: Array<{ name: string; yaml: string; env: Record<string, string>; text: (file: string) => string; fix: RegExp }> = [
  {
    name: 'a misspelt key in slack:', yaml: 'slack:\n  reaktions: false\n', env: SLACK,
    text: (file) => `${file}: field "slack.reaktions": found "reaktions", expected one of the known keys: api_url, streaming, http_host, http_port, reactions,`,
    fix: /^did you mean "reactions"\? Rename it, or remove it/,
  },
  {
    name: 'a bad value in discord:', yaml: 'discord:\n  reply: sideways\n', env: DISCORD,
    text: (file) => `${file}: field "discord.reply": found "sideways", expected "thread" or "inline"`,
    fix: /^thread: answer in a thread/,
  },
  {
    name: 'a user token in SLACK_BOT_TOKEN', yaml: 'queue_depth: 3\n', env: { ...SLACK, SLACK_BOT_TOKEN: 'xoxp-user-token-secret' },
    text: () => 'environment: field "SLACK_BOT_TOKEN": found "xoxp-… (22 chars)", expected a bot token starting with xoxb-',
    fix: /^use the Bot User OAuth Token/,
  },
];

for (const c of CASES) {
  test(`start refuses ${c.name} before it creates anything; run and doctor say the same`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tb-config-refuse-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'turnbridge.yaml');
    writeFileSync(file, `default_profile: ${ECHO}\n${c.yaml}`);
    const env = { ...c.env, TURNBRIDGE_DATA_DIR: join(dir, 'data'), TURNBRIDGE_WORKSPACE: join(dir, 'workspace') };

    const r = await startRefused(dir, env);
    assert.equal(r.code, 1, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const [first, second, ...rest] = r.stderr.trimEnd().split('\n');
    assert.ok(first!.startsWith(`turnbridge: configuration error: ${c.text(file)}`), r.stderr);
    assert.match(second!, /^ {2}fix: /);
    assert.match(second!.slice('  fix: '.length), c.fix);
    assert.deepEqual(rest, [], 'two lines, no stack');
    assert.equal(r.stdout, '', 'nothing listened, nothing started');
    assert.deepEqual(readdirSync(dir), ['turnbridge.yaml'], 'no data dir, no workspace, no state file: nothing was created');
    assert.ok(!r.stderr.includes('xoxp-user-token-secret'), 'a token is never echoed');

    // `run` reads the same turnbridge.yaml and environment, and prints the same two lines.
    const text = first!.slice('turnbridge: configuration error: '.length);
    const run = await runCli(['run', ECHO, '--message', 'hi'], { cwd: dir, env });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stderr, `error: configuration error: ${text}\n${second}\n`);
    const doctor = await runCli(['doctor'], { cwd: dir, env });
    assert.equal(doctor.code, 1, doctor.stdout);
    const shown = doctor.stdout.split('\n');
    const at = shown.findIndex((l) => l.includes(text));
    assert.ok(at > 0, `doctor shows "${text}":\n${doctor.stdout}`);
    assert.equal(shown[at + 1]!.trim(), second!.trim(), 'the same fix');
    assert.deepEqual(readdirSync(dir), ['turnbridge.yaml'], 'run and the doctor created nothing either');
  });
}
