import { strict as assert } from 'node:assert';
import { isTurnbridgeError, type ErrorCode, type TurnbridgeError } from '../../../src/errors.js';

/** The TurnbridgeError that `fn` throws (with `code`, when given); fails the test when it throws none. */
export function configError(fn: () => unknown, code?: ErrorCode): TurnbridgeError {
  try {
    fn();
  } catch (e) {
    if (code !== undefined) assert.ok(isTurnbridgeError(e, code), `expected ${code}, got ${String(e)}`);
    if (isTurnbridgeError(e)) return e;
    throw e;
  }
  assert.fail('expected a TurnbridgeError');
}
