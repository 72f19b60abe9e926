import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCliLogger } from '../../../src/cli/cli-logger.js';
import type { CliIo } from '../../../src/cli/io.js';

function logger(env: Record<string, string> = {}) {
  const lines: string[] = [];
  const io = { stderr: { write: (s: string) => lines.push(s) }, env } as unknown as CliIo;
  return { log: createCliLogger(io), lines };
}

test('cli logger: one human line per record, warn and up by default, LOG_LEVEL like pino', () => {
  const a = logger();
  a.log.debug('hidden');
  a.log.info({ x: 1 }, 'hidden too');
  a.log.warn('malformed agent output line ignored');
  a.log.warn({ reason: 'not valid JSON' }, 'malformed agent output line ignored');
  assert.deepEqual(a.lines, ['warning: malformed agent output line ignored\n', 'warning: malformed agent output line ignored {"reason":"not valid JSON"}\n']);
  const b = logger({ LOG_LEVEL: 'debug' });
  b.log.debug({ pid: 7 }, 'agent started');
  b.log.info({}, 'no fields');
  assert.deepEqual(b.lines, ['debug: agent started {"pid":7}\n', 'info: no fields\n']);
  const c = logger({ LOG_LEVEL: 'silent' });
  c.log.warn('nothing');
  assert.deepEqual(c.lines, []);
  const d = logger({ LOG_LEVEL: 'no-such-level' });
  d.log.info('hidden');
  d.log.warn('shown');
  assert.deepEqual(d.lines, ['warning: shown\n']);
});

test('cli logger: secrets redacted with the bridge log paths, the caller object untouched, long detail cut', () => {
  const { log, lines } = logger();
  const fields = { token: 'xoxb-1', launch: { env: { KEY: 'v' }, headers: { authorization: 'Bearer 2' } }, password: 'p', keep: 'ok' };
  log.warn(fields, 'w');
  assert.equal(lines[0], 'warning: w {"token":"[redacted]","launch":{"env":"[redacted]","headers":{"authorization":"[redacted]"}},"password":"[redacted]","keep":"ok"}\n');
  assert.equal(fields.token, 'xoxb-1');
  assert.deepEqual(fields.launch.env, { KEY: 'v' });
  log.warn({ err: new Error('boom') }, 'failed');
  assert.equal(lines[1], 'warning: failed {"err":{"type":"Error","message":"boom"}}\n');
  log.warn({ big: 'x'.repeat(400) }, 'long');
  assert.ok(lines[2]!.endsWith('…\n') && lines[2]!.length < 330);
});
