import pino, { type Logger, type LoggerOptions } from 'pino';
import { REDACT_PATHS } from './redact-paths.js';

export type { Logger };

export { REDACT_PATHS };

export interface CreateLoggerOptions {
  level?: string;
  /** Pretty output for people; defaults to on when stdout is a terminal. */
  pretty?: boolean;
  destination?: pino.DestinationStream;
}

export function createLogger(opts: CreateLoggerOptions = {}): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { name: 'turnbridge' },
  };
  if (opts.destination) return pino(options, opts.destination);
  const pretty = opts.pretty ?? (process.stdout.isTTY === true && process.env.NODE_ENV !== 'production');
  if (pretty) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'HH:MM:ss', ignore: 'pid,hostname,name' } } });
  }
  return pino(options);
}

/** A logger that drops everything (tests, library use without a host logger). */
export const silentLogger: Logger = pino({ level: 'silent' });
