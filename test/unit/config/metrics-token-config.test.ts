/**
 * TURNBRIDGE_METRICS_TOKEN and TURNBRIDGE_METRICS_TOKEN_FILE, read as `turnbridge start` reads them
 * (withSecretFiles, then loadConfig): the value lands in config.metricsToken; every mistake is a
 * TB_CONFIG_INVALID naming the variable (and the file), never echoing the token.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/index.js';
import { withSecretFiles } from '../../../src/config/secret-files.js';
import { configError } from './config-error.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-metrics-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const TOKEN = 'f00dfeed0123456789abcdef';

/** What start does with an environment. */
const load = (env: NodeJS.ProcessEnv) => loadConfig({ env: withSecretFiles(env, dir), cwd: dir });


describe('metrics token settings', () => {
  it('unset by default; TURNBRIDGE_METRICS_TOKEN sets it (trimmed)', () => {
    assert.equal(load({}).metricsToken, undefined);
    assert.equal(load({ TURNBRIDGE_METRICS_TOKEN: ` ${TOKEN} ` }).metricsToken, TOKEN);
  });

  it('TURNBRIDGE_METRICS_TOKEN_FILE: read from the file (trailing newline dropped), relative to the working directory', () => {
    writeFileSync(join(dir, 'metrics-token'), `${TOKEN}\n`);
    assert.equal(load({ TURNBRIDGE_METRICS_TOKEN_FILE: 'metrics-token' }).metricsToken, TOKEN);
  });

  it('an empty or missing token file, or both variables, is an error naming the _FILE variable and the file', () => {
    const empty = join(dir, 'empty-token');
    writeFileSync(empty, '\n');
    let e = configError(() => load({ TURNBRIDGE_METRICS_TOKEN_FILE: empty }));
    assert.equal(e.code, 'TB_CONFIG_INVALID');
    assert.equal(e.field, 'TURNBRIDGE_METRICS_TOKEN_FILE');
    assert.equal(e.file, empty);
    assert.match(e.message, /TURNBRIDGE_METRICS_TOKEN_FILE: .*empty-token is empty/);
    assert.match(e.hint ?? '', /write the value of TURNBRIDGE_METRICS_TOKEN into it/);

    e = configError(() => load({ TURNBRIDGE_METRICS_TOKEN_FILE: join(dir, 'missing') }));
    assert.equal(e.field, 'TURNBRIDGE_METRICS_TOKEN_FILE');
    assert.match(e.message, /ENOENT/);

    writeFileSync(join(dir, 'metrics-token'), `${TOKEN}\n`);
    e = configError(() => load({ TURNBRIDGE_METRICS_TOKEN_FILE: 'metrics-token', TURNBRIDGE_METRICS_TOKEN: TOKEN }));
    assert.equal(e.field, 'TURNBRIDGE_METRICS_TOKEN_FILE');
    assert.match(e.message, /both TURNBRIDGE_METRICS_TOKEN and TURNBRIDGE_METRICS_TOKEN_FILE are set/);
  });

  it('a short token or one with spaces is refused at start-up, naming the variable, never echoing the value', () => {
    let e = configError(() => load({ TURNBRIDGE_METRICS_TOKEN: 'short-secret' }));
    assert.equal(e.field, 'TURNBRIDGE_METRICS_TOKEN');
    assert.match(e.message, /at least 16 characters/);
    assert.match(e.hint ?? '', /openssl rand -hex 16/);
    assert.ok(!e.message.includes('short-secret') && !JSON.stringify(e).includes('short-secret'), 'the value is not echoed');

    e = configError(() => load({ TURNBRIDGE_METRICS_TOKEN: 'has a space in the middle' }));
    assert.equal(e.field, 'TURNBRIDGE_METRICS_TOKEN');
    assert.match(e.message, /without spaces/);
    assert.ok(!e.message.includes('space in the middle'));

    e = configError(() => load({ TURNBRIDGE_METRICS_TOKEN: 'ünïcödé-token-0123456789' }));
    assert.match(e.message, /visible ASCII/);
  });

  it('a short token read from a file names the _FILE variable and the file', () => {
    const file = join(dir, 'short-token');
    writeFileSync(file, 'tiny\n');
    const e = configError(() => load({ TURNBRIDGE_METRICS_TOKEN_FILE: file }));
    assert.equal(e.field, 'TURNBRIDGE_METRICS_TOKEN_FILE');
    assert.equal(e.file, file);
    assert.ok(e.message.includes(file), e.message);
    assert.match(e.hint ?? '', new RegExp(`openssl rand -hex 16 > ${file}`));
    assert.ok(!e.message.includes('tiny'));
  });

  it('a token in turnbridge.yaml is refused, pointing to the environment (tokens never go in that file)', () => {
    const file = join(dir, 'turnbridge.yaml');
    writeFileSync(file, `port: 3000\nmetrics_token: ${TOKEN}\n`);
    const e = configError(() => loadConfig({ env: {}, file, cwd: dir }));
    assert.equal(e.file, file);
    assert.equal(e.field, 'metrics_token');
    assert.match(e.hint ?? '', /TURNBRIDGE_METRICS_TOKEN_FILE/);
    assert.ok(!e.message.includes(TOKEN), 'the value is not echoed');
  });
});
