/** A real pino logger whose lines are kept, parsed, for tests that assert what was logged (e.g. a refused transition). */
import { Writable } from 'node:stream';
import pino from 'pino';

export function logCapture(level: pino.Level = 'debug'): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}
