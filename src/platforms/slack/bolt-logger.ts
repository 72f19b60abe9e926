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

/**
 * One line for a warning Slack's libraries repeat: a failing request is logged by the Web API
 * client and again by Bolt and Socket Mode, and again on every retry ("http request failed fetch
 * failed" three times a retry). The same text within `windowMs` is counted, not logged; the next
 * line that gets through says how many were held back. Shared by every Slack logger of one pino logger.
 */
interface RepeatGate { pass(text: string): number | false }
const gates = new WeakMap<Logger, RepeatGate>();

export function repeatGate(now: () => number = Date.now, windowMs = 60_000): RepeatGate {
  const seen = new Map<string, { at: number; held: number }>();
  return {
    pass(text) {
      const t = now();
      const last = seen.get(text);
      if (last && t - last.at < windowMs) {
        last.held++;
        return false;
      }
      if (seen.size > 100) seen.clear();
      seen.set(text, { at: t, held: 0 });
      return last?.held ?? 0;
    },
  };
}

/**
 * Web API warnings the bridge reports itself, once, with what to do (sessions.ts): the Web API
 * client logs `response_metadata.warnings` on every call, which would say it on every turn.
 */
const REPORTED_ELSEWHERE = ['missing_agent_session_stopped_event_subscription'];

export function boltLoggerFrom(logger: Logger, name = 'bolt', gate?: RepeatGate): BoltLogger {
  const child = logger.child({ component: name });
  let shared = gate ?? gates.get(logger);
  if (!shared) gates.set(logger, shared = repeatGate());
  const once = (write: (obj: object, text: string) => void, m: unknown[]) => {
    const text = join(m);
    const held = shared!.pass(text);
    if (held !== false) write(held > 0 ? { repeatedBefore: held } : {}, text);
  };
  let level: LogLevel = LogLevel.WARN;
  const order = [LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARN, LogLevel.ERROR];
  const on = (l: LogLevel): boolean => order.indexOf(l) >= order.indexOf(level);
  return {
    debug: (...m: unknown[]) => { if (on(LogLevel.DEBUG)) child.trace(join(m)); },
    info: (...m: unknown[]) => { if (on(LogLevel.INFO)) child.debug(join(m)); },
    warn: (...m: unknown[]) => {
      if (!on(LogLevel.WARN)) return;
      if (typeof m[0] === 'string' && REPORTED_ELSEWHERE.includes(m[0])) child.debug(join(m));
      else once((o, t) => child.warn(o, t), m);
    },
    error: (...m: unknown[]) => { if (on(LogLevel.ERROR)) once((o, t) => child.error(o, t), m); },
    setLevel: (l: LogLevel) => { level = l; },
    getLevel: () => level,
    setName: () => {},
  };
}
