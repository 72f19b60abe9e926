/**
 * `turnbridge audit [--since 2h] [--json] [--config FILE]`: the audit trail the bridge keeps in
 * its store (the embedded file in data_dir, or Redis with REDIS_URL), oldest first: permission
 * decisions, grants and their removal, rules added and cleared. A table with a header, or with
 * --json one JSON object per line (NDJSON). It only reads: a running bridge is not disturbed.
 */
import { createState, readAudit, type AuditEntry, type AuditPerson } from '../state/index.js';
import { bridgeEnv } from '../config/bridge-env.js';
import { loadConfig } from '../config/index.js';
import { silentLogger } from '../log.js';
import { parseCommandArgs, usageError } from './args.js';
import { helpText } from './help.js';
import { printable, type CliIo } from './io.js';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s" | "30m" | "2h" | "7d" | an ISO date -> ms since the epoch. */
export function parseSince(v: string, now: number): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([smhd])$/i.exec(v.trim());
  if (m) return now - Number(m[1]) * UNITS[m[2]!.toLowerCase()]!;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

const AUDIT_COLUMNS = ['TIME (UTC)', 'KIND', 'PLATFORM', 'WHO', 'CONVERSATION', 'TOOL', 'DECISION', 'DETAIL'] as const;
/** The detail column is cut here in the table (--json has everything). */
const DETAIL_MAX = 160;

/** `@name (id)`; the person's platform in front when it is not the row's. */
const person = (p: AuditPerson | undefined, row?: string): string =>
  (p ? `${row !== undefined && p.platform !== row ? `${p.platform} ` : ''}${p.name ? `@${p.name} ` : ''}(${p.id})` : '-');
const latency = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`);
const platformOf = (identity: string): string => identity.split(':')[0] ?? '-';

/** One entry as the table's cells, in AUDIT_COLUMNS order. */
function auditRow(e: AuditEntry): string[] {
  const when = new Date(e.at).toISOString().replace('T', ' ').slice(0, 19);
  let cells: [string, string, string, string, string, string];
  switch (e.kind) {
    case 'decision': {
      const who = e.decider ? person(e.decider, e.platform) : e.ruleSetBy ? `rule by ${person(e.ruleSetBy, e.platform)}` : '-';
      const detail = [
        e.reason ? `reason: ${e.reason}` : '',
        e.rule ? `rule ${e.rule}` : '',
        e.input ? `input ${e.input.text}${e.input.truncated ? '…' : ''} (sha256 ${e.input.sha256.slice(0, 12)})` : '',
        e.edited ? `edited to ${e.edited.text}${e.edited.truncated ? '…' : ''}` : '',
        `after ${latency(e.latencyMs)}`,
      ].filter(Boolean).join('; ');
      cells = [e.platform, who, e.conversation, e.tool, `${e.decision} (${e.source})`, detail];
      break;
    }
    case 'grant':
      cells = [platformOf(e.identity), person(e.by, platformOf(e.identity)), '-', '-', 'grant', `${e.identity}${e.name ? ` (${e.name})` : ''} via ${e.via}`];
      break;
    case 'grant-removed':
      cells = [platformOf(e.identity), person(e.by, platformOf(e.identity)), '-', '-', 'remove', e.identity];
      break;
    case 'rule-added':
      cells = [e.setBy.platform, person(e.setBy), e.conversation, e.rule.split('(')[0]!, 'rule', `added ${e.rule}`];
      break;
    case 'rule-cleared':
      cells = [e.by.platform, person(e.by), e.conversation, '-', 'rules', `cleared ${e.count} rule${e.count === 1 ? '' : 's'} (${e.why === 'reset' ? 'session reset' : 'rules clear'})`];
      break;
  }
  const row = [when, e.kind, ...cells].map(printable);
  const detail = row[7]!;
  row[7] = detail.length > DETAIL_MAX ? `${detail.slice(0, DETAIL_MAX - 1)}…` : detail;
  return row;
}

/** The header and the rows, each column as wide as its widest cell (the last one unpadded). */
function formatAuditTable(entries: readonly AuditEntry[]): string {
  const rows = [[...AUDIT_COLUMNS], ...entries.map(auditRow)];
  const widths = AUDIT_COLUMNS.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n') + '\n';
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
  try {
    const where = config.redisUrl ? 'Redis (REDIS_URL)' : config.dataDir;
    let entries: AuditEntry[];
    try {
      entries = await readAudit(state.store, since);
    } catch (err) {
      io.stderr.write(`error: could not read the audit trail from ${where}: ${(err as Error)?.message ?? String(err)}\n`);
      return 1;
    }
    if (values.json) {
      for (const e of entries) io.stdout.write(`${JSON.stringify(e)}\n`);
    } else if (entries.length === 0) {
      io.stderr.write(`nothing in the audit trail since ${new Date(since).toISOString()} in ${where}\n`);
    } else {
      io.stdout.write(formatAuditTable(entries));
    }
    return 0;
  } finally {
    await state.close().catch(() => {});
  }
}
