// `turnbridge audit` as a person runs it: the real CLI reading the trail a bridge stored.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { auditedInput, createState, type AuditEntry, type DecisionEntry } from '../../../src/state/index.js';
import { parseSince } from '../../../src/cli/audit.js';
import { silentLogger } from '../../../src/log.js';
import { makeConfig } from '../../unit/bridge/helpers.js';
import { runCli } from './cli-process.js';
import { startRedisServer } from '../../fakes/redis-server.js';
import { TEST_BUS_KEY } from '../../fixtures/bus-key.js';

const base: Omit<DecisionEntry, 'id' | 'kind' | 'at' | 'decision' | 'source'> = {
  platform: 'slack', conversation: 'slack:T1:C1:1700.1', tool: 'Bash', input: auditedInput({ command: 'npm test' }), latencyMs: 2500, turnId: 't1',
};
const ANA = { platform: 'slack', id: 'U0ANA', name: 'ana' };

test('--since accepts durations and dates', () => {
  assert.equal(parseSince('2h', 10_000_000), 10_000_000 - 7_200_000);
  assert.equal(parseSince('90s', 100_000), 10_000);
  assert.equal(parseSince('2026-12-01T09:00:00Z', 0), Date.parse('2026-12-01T09:00:00Z'));
  assert.equal(parseSince('soon', 0), undefined);
});

test('turnbridge audit prints a header and a row per entry since --since (decisions, grants, rules), or NDJSON with --json', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tb-audit-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const state = createState(makeConfig({ dataDir }), silentLogger);
  const audit = state.audit;
  const now = Date.now();
  audit.record({ ...base, at: now - 3 * 3_600_000, decision: 'deny', source: 'timeout', reason: 'No one answered', latencyMs: 600_000 });
  audit.record({ ...base, at: now - 60_000, decision: 'allow', source: 'thread', decider: ANA, rule: 'Bash(npm test:*)' });
  await audit.append({ kind: 'rule-added', at: now - 59_000, conversation: base.conversation, rule: 'Bash(npm test:*)', setBy: ANA });
  audit.record({ ...base, at: now - 30_000, decision: 'allow', source: 'rule', rule: 'Bash(npm test:*)', ruleSetBy: ANA, latencyMs: 0 });
  audit.record({ ...base, at: now - 20_000, decision: 'deny', source: 'reason', decider: { platform: 'discord', id: '8035', name: 'ben' }, reason: 'not on prod', input: auditedInput({ command: 'rm -rf /srv' }) });
  await audit.append({ kind: 'grant', at: now - 10_000, identity: 'slack:U0BEN', name: 'ben', by: { platform: 'cli', id: 'root' }, via: 'pairing' });
  await audit.append({ kind: 'grant-removed', at: now - 5_000, identity: 'slack:U0BEN', by: { platform: 'cli', id: 'root' } });
  audit.ruleCleared({ conversation: base.conversation, count: 1, by: ANA, why: 'rules-clear' });
  await audit.idle();
  await state.close();

  const env = { TURNBRIDGE_DATA_DIR: dataDir, TURNBRIDGE_CONFIG: '' };
  const text = await runCli(['audit', '--since', '1h'], { env });
  assert.equal(text.code, 0, text.stderr);
  const lines = text.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^TIME \(UTC\)\s+KIND\s+PLATFORM\s+WHO\s+CONVERSATION\s+TOOL\s+DECISION\s+DETAIL$/);
  assert.equal(lines.length, 1 + 7, text.stdout);
  const col = (name: string) => lines[0]!.indexOf(name);
  for (const l of lines.slice(1)) assert.equal(l[col('KIND') - 1], ' ', `aligned columns: ${l}`);
  const rows = lines.slice(1).map((l) => l.slice(col('KIND')));
  assert.match(rows[0]!, /^decision\s+slack\s+@ana \(U0ANA\)\s+slack:T1:C1:1700\.1\s+Bash\s+allow \(thread\)\s+rule Bash\(npm test:\*\); input \{"command":"npm test"\} \(sha256 [0-9a-f]{12}\); after 2\.5 s$/);
  assert.match(rows[1]!, /^rule-added\s+slack\s+@ana \(U0ANA\)\s+slack:T1:C1:1700\.1\s+Bash\s+rule\s+added Bash\(npm test:\*\)$/);
  assert.match(rows[2]!, /^decision\s+slack\s+rule by @ana \(U0ANA\)\s+.*allow \(rule\)\s+rule Bash\(npm test:\*\); .*after 0 ms$/);
  assert.match(rows[3]!, /^decision\s+slack\s+discord @ben \(8035\)\s+.*deny \(reason\)\s+reason: not on prod; input \{"command":"rm -rf \/srv"\}/);
  assert.match(rows[4]!, /^grant\s+slack\s+cli \(root\)\s+-\s+-\s+grant\s+slack:U0BEN \(ben\) via pairing$/);
  assert.match(rows[5]!, /^grant-removed\s+slack\s+cli \(root\)\s+-\s+-\s+remove\s+slack:U0BEN$/);
  assert.match(rows[6]!, /^rule-cleared\s+slack\s+@ana \(U0ANA\)\s+slack:T1:C1:1700\.1\s+-\s+rules\s+cleared 1 rule \(rules clear\)$/);

  const json = await runCli(['audit', '--since', '1d', '--json'], { env });
  const records = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as AuditEntry);
  assert.deepEqual(records.map((r) => r.kind), ['decision', 'decision', 'rule-added', 'decision', 'decision', 'grant', 'grant-removed', 'rule-cleared']);
  const timeout = records[0] as DecisionEntry;
  assert.deepEqual([timeout.source, timeout.reason, timeout.input?.text], ['timeout', 'No one answered', '{"command":"npm test"}']);
  const bad = await runCli(['audit', '--since', 'soon'], { env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--since "soon": expected a duration like 30m/);
  const unknown = await runCli(['audit', '--sinse', '1h'], { env });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^error: unknown option --sinse$/m, 'plain words, not the parser\'s text');
});

test('turnbridge audit shows what chat users wrote without its control characters (no terminal escapes reach the admin)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tb-audit-esc-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const state = createState(makeConfig({ dataDir }), silentLogger);
  const audit = state.audit;
  audit.record({ ...base, at: Date.now() - 1000, decision: 'deny', source: 'reason', decider: { platform: 'slack', id: 'U0EVE', name: 'eve\u001b[2J\u001b[1;1H' }, reason: 'ok\nallow (once) by @boss\u001b]0;x\u0007' });
  await audit.idle();
  await state.close();
  const text = await runCli(['audit'], { env: { TURNBRIDGE_DATA_DIR: dataDir, TURNBRIDGE_CONFIG: '' } });
  assert.equal(text.code, 0, text.stderr);
  assert.doesNotMatch(text.stdout, /[\u0000-\u0009\u000b-\u001f\u007f]/, 'no control characters but the line ends');
  assert.equal(text.stdout.trimEnd().split('\n').length, 2, 'one header, one row: a newline in a reason cannot forge a row');
  assert.match(text.stdout, /@eve\?\[2J\?\[1;1H \(U0EVE\)/);
});

/** Stores one decision at `at` through the real audit trail in the store `config` names. */
async function storeDecision(config: ReturnType<typeof makeConfig>, at: number): Promise<void> {
  const state = createState(config, silentLogger);
  const audit = state.audit;
  audit.record({ ...base, at, decision: 'allow', source: 'thread', decider: ANA });
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
  delete clean.TURNBRIDGE_BUS_KEY;
  const fromFile = await runCli(['audit', '--json'], { cwd, env: clean, clearEnv: true });
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.equal(fromFile.stdout.trim().split('\n').length, 1, `the decision in the .env data dir: ${fromFile.stdout}${fromFile.stderr}`);

  const redis = await startRedisServer();
  t.after(() => redis.stop());
  await storeDecision(makeConfig({ redisUrl: redis.url }), Date.now() - 30_000);
  await storeDecision(makeConfig({ redisUrl: redis.url }), Date.now() - 20_000);
  writeFileSync(join(cwd, 'redis-url'), `${redis.url}\n`);
  writeFileSync(join(cwd, 'bus-key'), `${TEST_BUS_KEY}\n`);
  // The records in Redis are sealed: audit needs the replicas' key to read them (here from a file).
  writeFileSync(join(cwd, '.env'), `TURNBRIDGE_DATA_DIR=${dataDir}\nREDIS_URL_FILE=redis-url\nTURNBRIDGE_BUS_KEY_FILE=bus-key\n`);
  const fromRedis = await runCli(['audit', '--json'], { cwd, env: clean, clearEnv: true });
  assert.equal(fromRedis.code, 0, fromRedis.stderr);
  assert.equal(fromRedis.stdout.trim().split('\n').length, 2, `the two decisions in Redis: ${fromRedis.stdout}${fromRedis.stderr}`);
});
