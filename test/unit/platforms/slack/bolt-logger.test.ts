/**
 * Slack's libraries log one failing request several times (the Web API client, Bolt, Socket
 * Mode) and again on every retry: through boltLoggerFrom the same text is one line per window,
 * the next one that gets through counts what was held back; other lines pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boltLoggerFrom, repeatGate } from '../../../../src/platforms/slack/platform.js';
import { logCapture } from '../../../fakes/log-capture.js';

test('"http request failed fetch failed" from three Slack loggers and three retries is logged once a minute', () => {
  const { logger, lines } = logCapture('debug');
  let now = 1_000;
  const gate = repeatGate(() => now, 60_000);
  const loggers = ['bolt', 'web-api', 'socket-mode'].map((name) => boltLoggerFrom(logger, name, gate));
  for (let retry = 0; retry < 3; retry++) {
    for (const l of loggers) l.warn('http request failed', 'fetch failed');
    now += 5_000;
  }
  loggers[0]!.error('an unrelated error');
  assert.deepEqual(lines.map((l) => [l.level, l.msg]), [[40, 'http request failed fetch failed'], [50, 'an unrelated error']]);
  now += 60_000;
  loggers[1]!.warn('http request failed', 'fetch failed');
  assert.equal(lines.length, 3);
  assert.equal(lines[2]!.repeatedBefore, 8, 'the line after the window says how many were held back');
});

test('without an explicit gate the Slack loggers of one pino logger share one', () => {
  const { logger, lines } = logCapture('debug');
  boltLoggerFrom(logger).warn('socket closed');
  boltLoggerFrom(logger, 'web-api').warn('socket closed');
  assert.equal(lines.length, 1);
});
