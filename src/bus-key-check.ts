/**
 * What the replicas' shared key (TURNBRIDGE_BUS_KEY, bus-key.ts) must be, and the errors for a bad
 * or missing one. Apart from bus-key.ts so that checking the configuration (every command, `run`
 * too) does not load node:crypto.
 */
import { TurnbridgeError } from './errors.js';

/** Fewest characters a key may have (`openssl rand -hex 32` gives 64). */
const BUS_KEY_MIN_CHARS = 32;
const MAKE_A_KEY = 'openssl rand -hex 32';

/** A key read from `field` (trimmed), or a TB_CONFIG_INVALID that says how to make a good one. */
export function checkBusKey(field: string, value: string): string {
  const key = value.trim();
  if (key.length < BUS_KEY_MIN_CHARS) {
    throw new TurnbridgeError('TB_CONFIG_INVALID', `${field} is too short (${key.length} characters): the replicas' key needs at least ${BUS_KEY_MIN_CHARS} random characters`, {
      field, found: '[hidden]', expected: `at least ${BUS_KEY_MIN_CHARS} characters`,
      hint: `make one with \`${MAKE_A_KEY}\` and give every replica the same value (${field}_FILE keeps it out of the environment)`,
    });
  }
  return key;
}

/** REDIS_URL without a key: the start (and `turnbridge allow` / `audit`) refuse, saying how to make one. */
export function missingBusKey(redisField: string): TurnbridgeError {
  return new TurnbridgeError('TB_CONFIG_INVALID', `${redisField} is set but TURNBRIDGE_BUS_KEY is not: replicas sign what they tell each other and what they keep in Redis with it, so that a process that can reach Redis cannot click Allow in someone's name or grant itself access`, {
    field: 'TURNBRIDGE_BUS_KEY', expected: `at least ${BUS_KEY_MIN_CHARS} random characters, the same on every replica`,
    hint: `make one with \`${MAKE_A_KEY}\` and set TURNBRIDGE_BUS_KEY (or TURNBRIDGE_BUS_KEY_FILE, a file holding it) wherever ${redisField} is set: every replica, \`turnbridge allow\` and \`turnbridge audit\` (docs/security.md)`,
  });
}
