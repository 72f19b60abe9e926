import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/index.js';
import { withSecretFiles } from '../../../src/config/secret-files.js';
import { bridgeEnv } from '../../../src/config/bridge-env.js';
import { configError } from './config-error.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-sec-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));


describe('security settings', () => {
  it('closed by default, a dedicated workspace, sandbox auto, the bridge\'s directory, .env and data dir protected', () => {
    const c = loadConfig({ env: {}, cwd: dir });
    assert.deepEqual(c.access, { mode: 'closed', allowUsers: [], admins: [], dms: true });
    assert.deepEqual(c.limits, { runningPerUser: 2, waitingPerUser: 5, waiting: 100, promptWaits: c.maxConcurrent, outboxFiles: 10, outboxBytes: 20 * 1048576 });
    assert.equal(c.agent.sandbox, 'auto');
    assert.ok(!c.agent.workspace.startsWith(dir), 'the workspace is not in the bridge\'s directory');
    assert.deepEqual(c.agent.protectedPaths, [dir, join(dir, '.env'), join(dir, 'data')]);
    assert.deepEqual(c.allowedHosts, []);
  });

  it('reads the interface variables exactly (platform:id lists)', () => {
    const c = loadConfig({
      cwd: dir,
      env: {
        TURNBRIDGE_ACCESS: 'open', TURNBRIDGE_ALLOW_USERS: 'slack:U0123,discord:80351110224678912, slack:S0123,discord:role:123456',
        TURNBRIDGE_ADMINS: 'slack:U0BOSS', TURNBRIDGE_ALLOW_CHANNELS: 'slack:C01,discord:1234567', TURNBRIDGE_ALLOW_DMS: 'false',
        TURNBRIDGE_MAX_RUNNING_PER_USER: '1', TURNBRIDGE_MAX_WAITING_PER_USER: '2', TURNBRIDGE_MAX_WAITING: '3', TURNBRIDGE_MAX_PROMPT_WAITS: '0',
        TURNBRIDGE_WORKSPACE: 'ws', TURNBRIDGE_SANDBOX: 'bwrap', TURNBRIDGE_RUN_AS: '1000:1001',
        TURNBRIDGE_ALLOWED_HOSTS: 'bridge.example.com,*.corp.example', TURNBRIDGE_LOCAL_TOKEN: '0123456789abcdef0123',
        SLACK_BOT_TOKEN_FILE: 'secrets/slack',
      },
    });
    assert.deepEqual(c.access, {
      mode: 'open', allowUsers: ['slack:U0123', 'discord:80351110224678912', 'slack:S0123', 'discord:role:123456'],
      admins: ['slack:U0BOSS'], channels: ['slack:C01', 'discord:1234567'], dms: false,
    });
    assert.deepEqual(c.limits, { runningPerUser: 1, waitingPerUser: 2, waiting: 3, promptWaits: 0, outboxFiles: 10, outboxBytes: 20 * 1048576 });
    assert.equal(c.agent.workspace, join(dir, 'ws'));
    assert.equal(c.agent.sandbox, 'bwrap');
    assert.deepEqual(c.agent.runAs, { uid: 1000, gid: 1001 });
    assert.ok(c.agent.protectedPaths.includes(join(dir, 'secrets/slack')), 'secret files are protected too');
    assert.deepEqual(c.allowedHosts, ['bridge.example.com', '*.corp.example']);
    assert.equal(c.localToken, '0123456789abcdef0123');
  });

  it('the same settings in turnbridge.yaml', () => {
    const file = join(dir, 'tb.yaml');
    writeFileSync(file, `
access: { mode: closed, allow_users: [slack:U0A, discord:role:99999], admins: [discord:80351110224678912], dms: true }
limits: { running_per_user: 3, outbox_files: 4, outbox_bytes: 1048576 }
agent: { workspace: ./agents, sandbox: off, run_as: { uid: 5, gid: 6 } }
allowed_hosts: [tb.example.org]
routes:
  - platform: slack
    profile: p.yaml
    approvers_only: true
`);
    const c = loadConfig({ file, env: {}, cwd: dir });
    assert.deepEqual(c.access.allowUsers, ['slack:U0A', 'discord:role:99999']);
    assert.deepEqual(c.access.admins, ['discord:80351110224678912']);
    assert.equal(c.limits.runningPerUser, 3);
    assert.equal(c.limits.outboxFiles, 4);
    assert.equal(c.limits.outboxBytes, 1048576);
    assert.equal(c.agent.workspace, join(dir, 'agents'));
    assert.deepEqual(c.agent.runAs, { uid: 5, gid: 6 });
    assert.deepEqual(c.allowedHosts, ['tb.example.org']);
    assert.equal(c.routes[0]!.approversOnly, true);
    assert.ok(c.agent.protectedPaths.includes(file));
  });

  it('outbox limits out of range name the field', () => {
    const file = join(dir, 'tb-outbox.yaml');
    for (const [yaml, field] of [['outbox_files: 101', 'limits.outbox_files'], ['outbox_bytes: 0', 'limits.outbox_bytes'], ['outbox_bytes: 20MB', 'limits.outbox_bytes']] as const) {
      writeFileSync(file, `limits: { ${yaml} }\n`);
      const e = configError(() => loadConfig({ file, env: {}, cwd: dir }));
      assert.equal(e.field, field);
    }
  });

  it('a bad entry names the variable and the forms', () => {
    let e = configError(() => loadConfig({ env: { TURNBRIDGE_ALLOW_USERS: 'U0123' }, cwd: dir }));
    assert.equal(e.field, 'TURNBRIDGE_ALLOW_USERS');
    assert.match(e.message, /slack:U0123/);
    e = configError(() => loadConfig({ env: { TURNBRIDGE_ACCESS: 'maybe' }, cwd: dir }));
    assert.equal(e.field, 'TURNBRIDGE_ACCESS');
    e = configError(() => loadConfig({ env: { TURNBRIDGE_SANDBOX: 'docker' }, cwd: dir }));
    assert.equal(e.field, 'TURNBRIDGE_SANDBOX');
    e = configError(() => loadConfig({ env: { TURNBRIDGE_LOCAL_TOKEN: 'short' }, cwd: dir }));
    assert.ok(!e.message.includes('short'), 'a token is never echoed');
  });

  it('*_FILE: the value comes from the file; both set, or a missing file, is an error naming the variable', () => {
    const secret = join(dir, 'bot-token');
    writeFileSync(secret, 'xoxb-from-file\n');
    const env = withSecretFiles({ SLACK_BOT_TOKEN_FILE: secret, DISCORD_TOKEN: 'd' }, dir);
    assert.equal(env.SLACK_BOT_TOKEN, 'xoxb-from-file');
    assert.equal(env.DISCORD_TOKEN, 'd');
    let e = configError(() => withSecretFiles({ SLACK_BOT_TOKEN_FILE: secret, SLACK_BOT_TOKEN: 'xoxb-x' }, dir));
    assert.equal(e.field, 'SLACK_BOT_TOKEN_FILE');
    e = configError(() => withSecretFiles({ DISCORD_TOKEN_FILE: join(dir, 'missing') }, dir));
    assert.equal(e.field, 'DISCORD_TOKEN_FILE');
    assert.match(e.message, /ENOENT/);
  });

  it('bridgeEnv: .env fills what the environment leaves unset, then *_FILE is read; process.env is untouched', () => {
    const cwd = mkdtempSync(join(dir, 'dotenv-'));
    writeFileSync(join(cwd, 'app-token'), 'xapp-from-file\n');
    writeFileSync(join(cwd, '.env'), 'SLACK_APP_TOKEN_FILE=app-token\nTURNBRIDGE_DATA_DIR=/from/dotenv\nLOG_LEVEL=debug\nTB_DOTENV_ONLY=1\n');
    const env = bridgeEnv({ LOG_LEVEL: 'warn' }, cwd);
    assert.equal(env.SLACK_APP_TOKEN, 'xapp-from-file', 'a _FILE named in .env, resolved against the working directory');
    assert.equal(env.TURNBRIDGE_DATA_DIR, '/from/dotenv');
    assert.equal(env.LOG_LEVEL, 'warn', 'the environment wins over .env');
    assert.equal(process.env.TB_DOTENV_ONLY, undefined, 'nothing is written to process.env');
    const e = configError(() => bridgeEnv({ SLACK_APP_TOKEN: 'xapp-env' }, cwd));
    assert.equal(e.field, 'SLACK_APP_TOKEN_FILE', 'a value in the environment plus a _FILE in .env is the same conflict');
  });
});
