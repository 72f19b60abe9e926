// `turnbridge audit` as a person runs it: the real CLI reading decisions a bridge stored.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createAuditTrail, type DecisionRecord } from '../../../src/bridge/audit.js';
import { createStateKv } from '../../../src/bridge/kv.js';
import { createState } from '../../../src/state/index.js';
import { parseSince } from '../../../src/cli/audit.js';
import { silentLogger } from '../../../src/log.js';
import { makeConfig } from '../bridge/helpers.js';
import { runCli } from './cli-process.js';
import { startRedisServer } from '../../fakes/redis-server.js';

const base: Omit<DecisionRecord, 'at' | 'decision' | 'source'> = {
  platform: 'slack', conversation: 'slack:T1:C1:1700.1', tool: 'Bash', inputDigest: '0123456789abcdef', latencyMs: 2500, turnId: 't1',
};

test('--since accepts durations and dates', () => {
  assert.equal(parseSince('2h', 10_000_000), 10_000_000 - 7_200_000);
  assert.equal(parseSince('90s', 100_000), 10_000);
  assert.equal(parseSince('2026-12-01T09:00:00Z', 0), Date.parse('2026-12-01T09:00:00Z'));
  assert.equal(parseSince('soon', 0), undefined);
});

test('turnbridge audit prints the decisions in the store since --since, as text or JSON', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tb-audit-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const state = createState(makeConfig({ dataDir }), silentLogger);
  const audit = createAuditTrail({ kv: createStateKv(state.store, silentLogger), logger: silentLogger });
  const now = Date.now();
  audit.record({ ...base, at: now - 3 * 3_600_000, decision: 'deny', source: 'timeout', latencyMs: 600_000 });
  audit.record({ ...base, at: now - 60_000, decision: 'allow', source: 'thread', user: { id: 'U0ANA', name: 'ana' }, rule: 'Bash(npm test:*)' });
  audit.record({ ...base, at: now - 30_000, decision: 'allow', source: 'rule', rule: 'Bash(npm test:*)', ruleSetBy: { id: 'U0ANA', name: 'ana' }, latencyMs: 0 });
  await audit.idle();
  await state.close();

  const env = { TURNBRIDGE_DATA_DIR: dataDir, TURNBRIDGE_CONFIG: '' };
  const text = await runCli(['audit', '--since', '1h'], { env });
  assert.equal(text.code, 0, text.stderr);
  const lines = text.stdout.trim().split('\n');
  assert.equal(lines.length, 2, text.stdout);
  assert.match(lines[0]!, /allow\s+thread\s+Bash\s+@ana \(U0ANA\)\s+2\.5 s\s+input 0123456789abcdef\s+slack:T1:C1:1700\.1\s+rule Bash\(npm test:\*\)$/);
  assert.match(lines[1]!, /allow\s+rule\s+Bash\s+rule by @ana\s+0 ms/);
  const json = await runCli(['audit', '--since', '1d', '--json'], { env });
  const records = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as DecisionRecord);
  assert.deepEqual(records.map((r) => r.source), ['timeout', 'thread', 'rule']);
  const bad = await runCli(['audit', '--since', 'soon'], { env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--since "soon": expected a duration like 30m/);
});

/** Stores one decision at `at` through the real audit trail in the store `config` names. */
async function storeDecision(config: ReturnType<typeof makeConfig>, at: number): Promise<void> {
  const state = createState(config, silentLogger);
  const audit = createAuditTrail({ kv: createStateKv(state.store, silentLogger), logger: silentLogger });
  audit.record({ ...base, at, decision: 'allow', source: 'thread', user: { id: 'U0ANA', name: 'ana' } });
  await audit.idle();
  await state.close();
}

test('turnbridge audit reads .env in its working directory as start does: TURNBRIDGE_DATA_DIR, and REDIS_URL_FILE', async (t) => {
  const cwd = mkdtempSync(join(tmpdir(), 'tb-audit-cwd-'));
  const dataDir = join(cwd, 'data');
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  await storeDecision(makeConfig({ dataDir }), Date.now() - 60_000);
  writeFileSync(join(cwd, '.env'), `TURNBRIDGE_DATA_DIR=${dataDir}\n`);
  // Set (even empty) in the environment, a variable wins over .env: run without these two.
  const clean: Record<string, string> = { ...(process.env as Record<string, string>), TURNBRIDGE_CONFIG: '' };
  delete clean.TURNBRIDGE_DATA_DIR;
  delete clean.REDIS_URL;
  const fromFile = await runCli(['audit', '--json'], { cwd, env: clean, clearEnv: true });
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.equal(fromFile.stdout.trim().split('\n').length, 1, `the decision in the .env data dir: ${fromFile.stdout}${fromFile.stderr}`);

  const redis = await startRedisServer();
  t.after(() => redis.stop());
  await storeDecision(makeConfig({ redisUrl: redis.url }), Date.now() - 30_000);
  await storeDecision(makeConfig({ redisUrl: redis.url }), Date.now() - 20_000);
  writeFileSync(join(cwd, 'redis-url'), `${redis.url}\n`);
  writeFileSync(join(cwd, '.env'), `TURNBRIDGE_DATA_DIR=${dataDir}\nREDIS_URL_FILE=redis-url\n`);
  const fromRedis = await runCli(['audit', '--json'], { cwd, env: clean, clearEnv: true });
  assert.equal(fromRedis.code, 0, fromRedis.stderr);
  assert.equal(fromRedis.stdout.trim().split('\n').length, 2, `the two decisions in Redis: ${fromRedis.stdout}${fromRedis.stderr}`);
});
