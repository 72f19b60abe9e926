import pino, { type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import { compactLine } from './log-line.js';
import { REDACT_PATHS } from './redact-paths.js';

export type { Logger };

export { REDACT_PATHS };

export interface CreateLoggerOptions {
  /** Default info (config.logLevel: LOG_LEVEL / log_level). */
  level?: string;
  /** Pretty output for people; defaults to on when stdout is a terminal. */
  pretty?: boolean;
  /** Colours in the pretty output (default on; off with NO_COLOR, config.noColor). */
  color?: boolean;
  destination?: pino.DestinationStream;
}

/** Whether createLogger with these options writes the one-line terminal format (not JSON). */
export function logsPretty(opts: Pick<CreateLoggerOptions, 'pretty'> = {}): boolean {
  return opts.pretty ?? process.stdout.isTTY === true;
}

export function createLogger(opts: CreateLoggerOptions = {}): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { name: 'turnbridge' },
  };
  if (opts.destination) return pino(options, opts.destination);
  const usePretty = logsPretty(opts);
  if (usePretty) {
    // In this thread (not a transport worker), so that the line format can be a function. hideObject:
    // the fields are in the line already (with singleLine, pino-pretty 13 drops the newline).
    return pino(options, pretty({
      colorize: opts.color ?? true, translateTime: 'HH:MM:ss', ignore: 'pid,hostname,name', hideObject: true,
      messageFormat: (log, messageKey) => compactLine(log, messageKey),
    }));
  }
  return pino(options);
}

/** A logger that drops everything (tests, library use without a host logger). */
export const silentLogger: Logger = pino({ level: 'silent' });
