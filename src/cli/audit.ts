/**
 * `turnbridge audit [--since 2h] [--json] [--config FILE]`: the recent permission decisions the
 * bridge keeps in its store (the embedded file in data_dir, or Redis with REDIS_URL), oldest
 * first. It only reads: a running bridge is not disturbed.
 */
import { AUDIT_KEY, readAuditRecords, type DecisionRecord } from '../bridge/audit.js';
import { createStateKv } from '../bridge/kv.js';
import { createState } from '../state/index.js';
import { bridgeEnv } from '../config/bridge-env.js';
import { loadConfig } from '../config/index.js';
import { silentLogger } from '../log.js';
import { parseCommandArgs, usageError } from './args.js';
import { helpText } from './help.js';
import type { CliIo } from './io.js';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s" | "30m" | "2h" | "7d" | an ISO date -> ms since the epoch. */
export function parseSince(v: string, now: number): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([smhd])$/i.exec(v.trim());
  if (m) return now - Number(m[1]) * UNITS[m[2]!.toLowerCase()]!;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

export function formatRecord(r: DecisionRecord): string {
  const when = new Date(r.at).toISOString().replace('T', ' ').slice(0, 19);
  const who = r.user ? `@${r.user.name ?? r.user.id} (${r.user.id})` : r.ruleSetBy ? `rule by @${r.ruleSetBy.name ?? r.ruleSetBy.id}` : '-';
  const latency = r.latencyMs >= 1000 ? `${(r.latencyMs / 1000).toFixed(1)} s` : `${r.latencyMs} ms`;
  const extra = [r.rule ? `rule ${r.rule}` : '', r.editedDigest ? `edited ${r.editedDigest}` : ''].filter(Boolean).join(' ');
  return [when, pad(r.decision, 5), pad(r.source, 11), pad(r.tool, 12), pad(who, 24), pad(latency, 8), `input ${r.inputDigest}`, r.conversation, extra].join('  ').trimEnd();
}

export async function auditCommand(argv: string[], io: CliIo, now = Date.now()): Promise<number> {
  const { values } = parseCommandArgs('audit', argv, {
    since: { type: 'string' },
    json: { type: 'boolean' },
    config: { type: 'string', short: 'c' },
  }, { min: 0, max: 0, names: '' });
  if (values.help) {
    io.stdout.write(helpText('audit'));
    return 0;
  }
  const since = values.since === undefined ? now - UNITS.d! : parseSince(values.since, now);
  if (since === undefined) throw usageError('audit', `--since ${JSON.stringify(values.since)}: expected a duration like 30m, 2h, 7d or a date like 2026-12-01T09:00Z`);
  const config = loadConfig({ file: values.config, env: bridgeEnv(io.env) });
  const state = createState(config, silentLogger);
  const kv = createStateKv(state.store, silentLogger);
  try {
    const records = readAuditRecords(await kv.get(AUDIT_KEY)).filter((r) => r.at >= since).sort((a, b) => a.at - b.at);
    if (values.json) {
      for (const r of records) io.stdout.write(`${JSON.stringify(r)}\n`);
    } else if (records.length === 0) {
      io.stderr.write(`no permission decisions since ${new Date(since).toISOString()} in ${config.redisUrl ? 'Redis' : config.dataDir}\n`);
    } else {
      for (const r of records) io.stdout.write(`${formatRecord(r)}\n`);
    }
    return 0;
  } finally {
    await state.close().catch(() => {});
  }
}
