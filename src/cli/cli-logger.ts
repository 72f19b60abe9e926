import { REDACT_PATHS } from '../redact-paths.js';
import type { RunLogger } from '../runner/index.js';
import type { CliIo } from './io.js';

/** pino's level numbers, so LOG_LEVEL means the same here as for `turnbridge start`. */
const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };
const CENSOR = '[redacted]';

/**
 * A logger for terminal commands: one short human line per record on stderr
 * ("warning: malformed line ignored {"reason":…}"), level from LOG_LEVEL (default warn; an
 * unknown level counts as warn). Not pino: `run` and `chat` start faster without loading it
 * (and its worker thread machinery); secrets are redacted with the same paths as the bridge log.
 */
export function createCliLogger(io: CliIo): RunLogger {
  const threshold = LEVELS[io.env.LOG_LEVEL ?? 'warn'] ?? LEVELS.warn!;
  const at = (level: number, name: string) => (objOrMsg: unknown, msg?: string): void => {
    if (level < threshold) return;
    if (typeof objOrMsg === 'string') io.stderr.write(`${name}: ${objOrMsg}\n`);
    else io.stderr.write(`${name}: ${msg ?? (objOrMsg instanceof Error ? objOrMsg.message : '')}${detail(objOrMsg)}\n`);
  };
  return { debug: at(LEVELS.debug!, 'debug'), info: at(LEVELS.info!, 'info'), warn: at(LEVELS.warn!, 'warning') };
}

function detail(fields: unknown): string {
  if (typeof fields !== 'object' || fields === null || fields instanceof Error) return '';
  const record = redacted(fields as Record<string, unknown>);
  if (Object.keys(record).length === 0) return '';
  const text = JSON.stringify(record, (_k, v: unknown) => (v instanceof Error ? { type: v.name, message: v.message } : v));
  return ` ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
}

/** A copy with every REDACT_PATHS path (`a`, `a.b`, `*.a`, `*.a.b`) censored; the caller's objects are untouched. */
function redacted(record: Record<string, unknown>): Record<string, unknown> {
  let out = record;
  for (const path of REDACT_PATHS) {
    const [first, ...rest] = path.split('.');
    if (first !== '*') {
      out = censorIn(out, [first!, ...rest]);
      continue;
    }
    for (const [k, v] of Object.entries(out)) {
      if (!isRecord(v)) continue;
      const c = censorIn(v, rest);
      if (c !== v) out = { ...out, [k]: c };
    }
  }
  return out;
}

/** `node` with the value at `keys` censored: a copy when the path exists, else node itself. */
function censorIn(node: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const [first, ...rest] = keys;
  if (first === undefined || !(first in node)) return node;
  if (rest.length === 0) return { ...node, [first]: CENSOR };
  const child = node[first];
  if (!isRecord(child)) return node;
  const next = censorIn(child, rest);
  return next === child ? node : { ...node, [first]: next };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Error);
}
