import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { BridgeContext } from '../../../src/bridge/turns/context.js';
import { permissionTimeoutMs } from '../../../src/bridge/turns/ask-person.js';
import type { Turn } from '../../../src/bridge/turns/turn.js';
import { makeConfig, makeProfile } from './helpers.js';

describe('permission timeout', () => {
  const at = (configSecs: number, profileSecs: number, startedAt: number | undefined, now: number) =>
    permissionTimeoutMs(
      { config: makeConfig({ permissionTimeoutSecs: configSecs }), now: () => now } as BridgeContext,
      { profile: makeProfile({ timeoutSecs: profileSecs }), startedAt } as Turn,
    );

  it('uses the configured timeout when the turn has time enough', () => {
    assert.equal(at(600, 3600, 0, 0), 600_000);
  });

  it('is clamped below what is left of the turn, with a margin', () => {
    assert.equal(at(600, 120, 0, 0), 115_000);
    assert.equal(at(600, 120, 0, 100_000), 15_000);
    assert.equal(at(600, 10, 0, 0), 9_000);
    assert.equal(at(600, 120, 0, 119_000), 0, 'never negative');
  });

  it('no profile timeout: the configured one', () => {
    assert.equal(at(30, 0, 0, 0), 30_000);
  });
});
