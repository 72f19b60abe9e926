/** The state contract against the in-memory store the unit tests use. */
import { createMemoryStore, memoryData } from '../../src/state/index.js';
import { stateContract } from './state-contract.js';

stateContract('memory', () => {
  const data = memoryData();
  let clock = 1_000_000;
  return {
    // Every client of one backend shares the suite's clock: expiring a key moves time past its TTL.
    open: () => createMemoryStore({ data, now: () => clock }),
    async expire() {
      clock += 24 * 3600_000;
    },
  };
});
