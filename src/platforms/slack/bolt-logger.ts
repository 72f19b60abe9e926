/**
 * Bolt / Socket Mode / Web API log lines -> pino. Bolt's debug output carries whole payloads
 * (message bodies, envelope tokens), so it goes to trace, below our own debug.
 */
import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../../log.js';

/** Slack tokens and `"token":"…"` fields (Socket Mode payloads carry a verification token). */
export function scrubSecrets(s: string): string {
  return s
    .replace(/\b(xox[abprs]|xapp|xoxe(?:\.xox[bp])?)-[A-Za-z0-9-]+/g, '$1-[redacted]')
    .replace(/("token"\s*:\s*")[^"]*(")/g, '$1[redacted]$2');
}

function join(msg: unknown[]): string {
  return scrubSecrets(msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' '));
}

export function boltLoggerFrom(logger: Logger, name = 'bolt'): BoltLogger {
  const child = logger.child({ component: name });
  let level: LogLevel = LogLevel.WARN;
  const order = [LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARN, LogLevel.ERROR];
  const on = (l: LogLevel): boolean => order.indexOf(l) >= order.indexOf(level);
  return {
    debug: (...m: unknown[]) => { if (on(LogLevel.DEBUG)) child.trace(join(m)); },
    info: (...m: unknown[]) => { if (on(LogLevel.INFO)) child.debug(join(m)); },
    warn: (...m: unknown[]) => { if (on(LogLevel.WARN)) child.warn(join(m)); },
    error: (...m: unknown[]) => { if (on(LogLevel.ERROR)) child.error(join(m)); },
    setLevel: (l: LogLevel) => { level = l; },
    getLevel: () => level,
    setName: () => {},
  };
}
