import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../../src/config/index.js';
import { withSecretFiles } from '../../../src/config/secret-files.js';
import { LOCAL_DEFAULTS } from '../../../src/config/platform-configs.js';
import { configError as expectConfigError } from './config-error.js';
import { TEST_BUS_KEY } from '../../fixtures/bus-key.js';

const root = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const dir = mkdtempSync(join(tmpdir(), 'tb-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function writeYaml(text: string): string {
  const file = join(dir, `c${++n}.yaml`);
  writeFileSync(file, text);
  return file;
}

const configError = (fn: () => unknown) => expectConfigError(fn, 'TB_CONFIG_INVALID');

describe('loadConfig', () => {
  it('runs on defaults with no file and an empty environment', () => {
    const c = loadConfig({ env: {}, cwd: dir });
    assert.equal(c.file, undefined);
    assert.equal(c.defaultProfile, join(root, 'profiles', 'demo', 'profile.yaml'));
    assert.equal(c.dataDir, join(dir, 'data'));
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.port, 3000);
    assert.equal(c.queueDepth, 5);
    assert.equal(c.maxConcurrent, 4);
    assert.equal(c.permissionTimeoutSecs, 600);
    assert.equal(c.shutdownGraceSecs, 10);
    assert.equal(c.logLevel, 'info');
    assert.deepEqual(c.routes, []);
    assert.deepEqual(c.approvers, []);
    assert.deepEqual(c.platforms, { local: LOCAL_DEFAULTS }, 'no token: no Slack, no Discord; the local page on its defaults');
    assert.equal(c.redisUrl, undefined);
  });

  it('reads the environment basics', () => {
    const c = loadConfig({
      cwd: dir,
      env: {
        TURNBRIDGE_PROFILE: 'p/profile.yaml', TURNBRIDGE_DATA_DIR: '/var/tb', HOST: '0.0.0.0', PORT: '8080',
        REDIS_URL: 'redis://127.0.0.1:6379', TURNBRIDGE_BUS_KEY: TEST_BUS_KEY, LOG_LEVEL: 'DEBUG', TURNBRIDGE_MAX_CONCURRENT: '2',
        TURNBRIDGE_QUEUE_DEPTH: '0', TURNBRIDGE_APPROVERS: 'slack:U1, slack:U2,,discord:role:12345, discord:80351110224678912', TURNBRIDGE_PERMISSION_TIMEOUT_SECS: '30',
      },
    });
    assert.equal(c.defaultProfile, join(dir, 'p', 'profile.yaml'));
    assert.equal(c.dataDir, '/var/tb');
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.port, 8080);
    assert.equal(c.redisUrl, 'redis://127.0.0.1:6379');
    assert.equal(c.logLevel, 'debug');
    assert.equal(c.maxConcurrent, 2);
    assert.equal(c.queueDepth, 0);
    assert.deepEqual(c.approvers, ['slack:U1', 'slack:U2', 'discord:role:12345', 'discord:80351110224678912']);
    assert.equal(c.permissionTimeoutSecs, 30);
  });

  it('reads a full file, resolving paths against its directory, and the environment wins', () => {
    const file = writeYaml(`
default_profile: profiles/x.yaml
routes:
  - platform: slack
    channel: C1
    profile: ./echo.yaml
    allow_users: [U1, 1234567890123456789]
    options: { reply: inline }
  - profile: /abs/p.yaml
approvers: [slack:U9]
queue_depth: 2
max_concurrent: 8
permission_timeout_secs: 0.5
data_dir: state
host: 127.0.0.2
port: 0
shutdown_grace_secs: 3
log_level: warn
slack: { streaming: edit }
discord:
  allow_bots: false
`);
    const c = loadConfig({ file, env: { TURNBRIDGE_MAX_CONCURRENT: '3' }, cwd: '/' });
    assert.equal(c.file, file);
    assert.equal(c.defaultProfile, join(dir, 'profiles', 'x.yaml'));
    assert.deepEqual(c.routes, [
      { platform: 'slack', channel: 'C1', profile: join(dir, 'echo.yaml'), allowUsers: ['U1', '1234567890123456789'], options: { reply: 'inline' } },
      { profile: '/abs/p.yaml' },
    ]);
    assert.deepEqual(c.approvers, ['slack:U9']);
    assert.equal(c.queueDepth, 2);
    assert.equal(c.maxConcurrent, 3, 'environment overrides the file');
    assert.equal(c.permissionTimeoutSecs, 0.5);
    assert.equal(c.dataDir, join(dir, 'state'));
    assert.equal(c.host, '127.0.0.2');
    assert.equal(c.port, 0);
    assert.equal(c.shutdownGraceSecs, 3);
    assert.equal(c.logLevel, 'warn');
    assert.deepEqual(c.platforms, { local: LOCAL_DEFAULTS }, 'no token: the sections are checked, no platform is on');
    const on = loadConfig({ file, env: { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', DISCORD_TOKEN: 't' }, cwd: '/' });
    assert.equal(on.platforms.slack?.streaming, 'edit');
    assert.equal(on.platforms.discord?.ignoreBots, true, 'allow_bots: false');
  });

  it('finds ./turnbridge.yaml in the working directory, and TURNBRIDGE_CONFIG over opts.file', () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    writeFileSync(join(cwd, 'turnbridge.yaml'), 'queue_depth: 7\n');
    assert.equal(loadConfig({ env: {}, cwd }).queueDepth, 7);
    const other = writeYaml('queue_depth: 9\n');
    assert.equal(loadConfig({ env: { TURNBRIDGE_CONFIG: other }, cwd, file: 'nope.yaml' }).queueDepth, 9);
  });

  it('an empty file is fine', () => {
    assert.equal(loadConfig({ file: writeYaml(''), env: {} }).queueDepth, 5);
  });

  it('parses the shipped turnbridge.example.yaml', () => {
    const c = loadConfig({ file: join(root, 'turnbridge.example.yaml'), env: {} });
    assert.equal(c.routes.length, 2);
    assert.equal(c.routes[0]!.profile, join(root, 'profiles', 'echo', 'profile.yaml'));
  });

  it('names file, field, found and expected for a bad value', () => {
    const file = writeYaml('max_concurrent: lots\n');
    const e = configError(() => loadConfig({ file, env: {} }));
    assert.equal(e.file, file);
    assert.equal(e.field, 'max_concurrent');
    assert.equal(e.found, 'lots');
    assert.match(e.message, new RegExp(`^${file}: field "max_concurrent": found "lots", expected an integer from 1 to 1000`));
    assert.match(e.message, /Fix "max_concurrent" in .* turnbridge\.example\.yaml/, 'says what to do');
    assert.ok(e.hint);
  });

  it('TURNBRIDGE_BUS_KEY: required with REDIS_URL (or redis_url), at least 32 characters, from a file too, never in turnbridge.yaml', () => {
    const missing = configError(() => loadConfig({ env: { REDIS_URL: 'redis://127.0.0.1:6379' }, cwd: dir }));
    assert.equal(missing.field, 'TURNBRIDGE_BUS_KEY');
    assert.match(missing.message, /^REDIS_URL is set but TURNBRIDGE_BUS_KEY is not/);
    assert.match(missing.hint!, /openssl rand -hex 32/, 'says how to make one');
    assert.match(missing.hint!, /TURNBRIDGE_BUS_KEY_FILE/);
    const inYaml = writeYaml('redis_url: redis://127.0.0.1:6379\n');
    assert.match(configError(() => loadConfig({ file: inYaml, env: {} })).message, /redis_url is set but TURNBRIDGE_BUS_KEY is not/);
    const short = configError(() => loadConfig({ env: { REDIS_URL: 'redis://127.0.0.1:6379', TURNBRIDGE_BUS_KEY: 'secret' }, cwd: dir }));
    assert.equal(short.field, 'TURNBRIDGE_BUS_KEY');
    assert.match(short.message, /too short \(6 characters\)/);
    assert.doesNotMatch(JSON.stringify({ ...short, message: short.message }), /secret/, 'the key itself is never in the error');
    const keyFile = join(dir, 'bus-key');
    writeFileSync(keyFile, `${TEST_BUS_KEY}\n`);
    const c = loadConfig({ env: withSecretFiles({ REDIS_URL: 'redis://127.0.0.1:6379', TURNBRIDGE_BUS_KEY_FILE: keyFile }), cwd: dir });
    assert.equal(c.busKey, TEST_BUS_KEY);
    assert.ok(c.agent.protectedPaths.includes(keyFile), 'agents are kept away from the key file');
    const inFile = writeYaml(`bus_key: ${TEST_BUS_KEY}\n`);
    assert.match(configError(() => loadConfig({ file: inFile, env: {} })).hint!, /TURNBRIDGE_BUS_KEY_FILE/);
    assert.equal(loadConfig({ env: {}, cwd: dir }).busKey, undefined, 'no Redis, no key needed');
    const rotating = loadConfig({ env: { REDIS_URL: 'redis://127.0.0.1:6379', TURNBRIDGE_BUS_KEY: TEST_BUS_KEY, TURNBRIDGE_BUS_KEY_PREVIOUS: `${TEST_BUS_KEY}-old` }, cwd: dir });
    assert.equal(rotating.busKeyPrevious, `${TEST_BUS_KEY}-old`);
    assert.equal(configError(() => loadConfig({ env: { REDIS_URL: 'redis://127.0.0.1:6379', TURNBRIDGE_BUS_KEY: TEST_BUS_KEY, TURNBRIDGE_BUS_KEY_PREVIOUS: 'short' }, cwd: dir })).field, 'TURNBRIDGE_BUS_KEY_PREVIOUS');
  });

  it('shared_max_concurrent / TURNBRIDGE_SHARED_MAX_CONCURRENT: read, range-checked, and refused without REDIS_URL', () => {
    assert.equal(loadConfig({ env: { REDIS_URL: 'redis://127.0.0.1:6379', TURNBRIDGE_BUS_KEY: TEST_BUS_KEY, TURNBRIDGE_SHARED_MAX_CONCURRENT: '6' }, cwd: dir }).sharedMaxConcurrent, 6);
    assert.equal(loadConfig({ env: {}, cwd: dir }).sharedMaxConcurrent, undefined, 'off unless set');
    const file = writeYaml('redis_url: redis://127.0.0.1:6379\nshared_max_concurrent: 4\n');
    assert.equal(loadConfig({ file, env: { TURNBRIDGE_BUS_KEY: TEST_BUS_KEY } }).sharedMaxConcurrent, 4);
    assert.equal(loadConfig({ file, env: { TURNBRIDGE_BUS_KEY: TEST_BUS_KEY, TURNBRIDGE_SHARED_MAX_CONCURRENT: '9' } }).sharedMaxConcurrent, 9, 'the environment wins');
    const bad = configError(() => loadConfig({ env: { REDIS_URL: 'redis://127.0.0.1:6379', TURNBRIDGE_BUS_KEY: TEST_BUS_KEY, TURNBRIDGE_SHARED_MAX_CONCURRENT: '0' }, cwd: dir }));
    assert.equal(bad.field, 'TURNBRIDGE_SHARED_MAX_CONCURRENT');
    const noRedis = configError(() => loadConfig({ env: { TURNBRIDGE_SHARED_MAX_CONCURRENT: '2' }, cwd: dir }));
    assert.equal(noRedis.field, 'TURNBRIDGE_SHARED_MAX_CONCURRENT');
    assert.match(noRedis.message, /REDIS_URL \(redis_url\) is not set/);
    assert.match(noRedis.hint!, /set REDIS_URL .* or remove TURNBRIDGE_SHARED_MAX_CONCURRENT/);
    const inFile = writeYaml('shared_max_concurrent: 2\n');
    const fromFile = configError(() => loadConfig({ file: inFile, env: {} }));
    assert.equal(fromFile.field, 'shared_max_concurrent');
    assert.equal(fromFile.file, inFile);
    assert.match(fromFile.message, new RegExp(`^${inFile}: shared_max_concurrent=2`));
  });

  it('lists the known keys for an unknown top-level key', () => {
    const e = configError(() => loadConfig({ file: writeYaml('queue_dept: 3\n'), env: {} }));
    assert.equal(e.field, 'queue_dept');
    assert.match(e.message, /one of the known keys: default_profile, routes, .*queue_depth/);
  });

  it('rejects bad routes with the route index in the field', () => {
    let e = configError(() => loadConfig({ file: writeYaml('routes:\n  - channel: C1\n'), env: {} }));
    assert.equal(e.field, 'routes[0].profile');
    e = configError(() => loadConfig({ file: writeYaml('routes:\n  - profile: a.yaml\n    chanel: C1\n'), env: {} }));
    assert.equal(e.field, 'routes[0].chanel');
    e = configError(() => loadConfig({ file: writeYaml('routes:\n  - profile: a.yaml\n    allow_users: U1\n'), env: {} }));
    assert.equal(e.field, 'routes[0].allow_users');
    assert.match(e.message, /expected a list of ids/);
    e = configError(() => loadConfig({ file: writeYaml('routes: {profile: a}\n'), env: {} }));
    assert.equal(e.field, 'routes');
    e = configError(() => loadConfig({ file: writeYaml('routes:\n  - profile: a.yaml\n    approval_timeout_secs: 0\n'), env: {} }));
    assert.equal(e.field, 'routes[0].approval_timeout_secs');
    assert.match(e.message, /a number of seconds above 0/);
    e = configError(() => loadConfig({ file: writeYaml('routes:\n  - profile: a.yaml\n    approver_groups: S0OPS\n'), env: {} }));
    assert.equal(e.field, 'routes[0].approver_groups');
  });

  it('routes carry approvers, approver groups and their own approval timeout', () => {
    const c = loadConfig({ file: writeYaml('routes:\n  - profile: a.yaml\n    channel: C1\n    approvers: [U0LEAD]\n    approver_groups: [S0OPS, 123456789012345678901]\n    approval_timeout_secs: 120\n'), env: {} });
    assert.deepEqual(c.routes[0]!.approvers, ['U0LEAD']);
    assert.deepEqual(c.routes[0]!.approverGroups, ['S0OPS', '123456789012345678901']);
    assert.equal(c.routes[0]!.approvalTimeoutSecs, 120);
  });

  it('rejects bad environment values naming the variable', () => {
    let e = configError(() => loadConfig({ env: { PORT: '70000' } }));
    assert.equal(e.field, 'PORT');
    assert.match(e.message, /^environment: field "PORT": found "70000", expected an integer from 0 to 65535\. Fix or unset the environment variable PORT/);
    e = configError(() => loadConfig({ env: { TURNBRIDGE_QUEUE_DEPTH: '-1' } }));
    assert.equal(e.field, 'TURNBRIDGE_QUEUE_DEPTH');
    e = configError(() => loadConfig({ env: { LOG_LEVEL: 'loud' } }));
    assert.match(e.message, /expected one of trace, debug/);
    e = configError(() => loadConfig({ env: { REDIS_URL: 'http://x' } }));
    assert.equal(e.field, 'REDIS_URL');
    e = configError(() => loadConfig({ env: { TURNBRIDGE_PERMISSION_TIMEOUT_SECS: '0' } }));
    assert.equal(e.field, 'TURNBRIDGE_PERMISSION_TIMEOUT_SECS');
  });

  it('reports YAML syntax errors with the file and line', () => {
    const file = writeYaml('queue_depth: 3\nroutes: [\n');
    const e = configError(() => loadConfig({ file, env: {} }));
    assert.match(e.message, new RegExp(`^${file}(:\\d+)?: not valid YAML`));
  });

  it('a missing explicit config file is an error; a non-mapping file is an error', () => {
    let e = configError(() => loadConfig({ env: { TURNBRIDGE_CONFIG: join(dir, 'missing.yaml') } }));
    assert.match(e.message, /config file not found/);
    assert.equal(e.field, 'TURNBRIDGE_CONFIG');
    e = configError(() => loadConfig({ file: writeYaml('- a\n- b\n'), env: {} }));
    assert.match(e.message, /expected a mapping/);
    e = configError(() => loadConfig({ file: writeYaml('slack: yes-please\n'), env: {} }));
    assert.equal(e.field, 'slack');
  });
});
