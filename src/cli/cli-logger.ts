import { createLogger, type Logger } from '../log.js';
import type { CliIo } from './io.js';

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warning', 50: 'error', 60: 'fatal' };

/**
 * A logger for terminal commands: one short human line per record on stderr
 * ("warning: malformed line ignored"), level from LOG_LEVEL (default warn).
 * Uses no pino transport, so no worker thread slows the start.
 */
export function createCliLogger(io: CliIo): Logger {
  const destination = {
    write(line: string): void {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        io.stderr.write(line);
        return;
      }
      const level = LEVEL_NAMES[record.level as number] ?? 'log';
      io.stderr.write(`${level}: ${String(record.msg ?? '')}${detail(record)}\n`);
    },
  };
  return createLogger({ level: io.env.LOG_LEVEL ?? 'warn', destination });
}

const SKIP = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg']);

function detail(record: Record<string, unknown>): string {
  const rest = Object.entries(record).filter(([k]) => !SKIP.has(k));
  if (rest.length === 0) return '';
  const text = JSON.stringify(Object.fromEntries(rest));
  return ` ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
}
