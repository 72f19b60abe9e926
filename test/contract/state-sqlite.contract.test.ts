import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { createSqliteStore } from '../../src/state/index.js';
import { stateContract } from './state-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-state-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

stateContract('sqlite', () => {
  const file = join(dir, `state-${++n}.sqlite`);
  let clock = 1_000_000;
  return {
    // Every client of one file shares the suite's clock: expiring a key moves time past its TTL.
    open: () => createSqliteStore({ file, now: () => clock }),
    async expire(ns, key) {
      clock += 24 * 3600_000;
    },
  };
});
