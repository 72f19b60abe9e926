/** Fake-clock helpers for delivery tests (node:test mock timers, Date included, so bottleneck follows). */
import type { TestContext } from 'node:test';
import type { DeliveryStats, LiveReply, ReplyOutcome } from '../../../src/delivery/index.js';

export const conv = { space: 'T1', channel: 'C1', thread: '' };

export function useFakeClock(t: TestContext, start = 1_000_000): void {
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: start });
}

/** Let promise chains and bottleneck's internal hops run (setImmediate is not mocked). */
export async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Advance the fake clock by `ms` in steps, flushing between steps. */
export async function advance(t: TestContext, ms: number, step = 25): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    t.mock.timers.tick(Math.min(step, ms - done));
    await flush();
  }
}

/** finish() while the fake clock runs; fails the test if it needs more than `maxMs` of fake time. */
export async function finishOnClock(t: TestContext, reply: LiveReply, outcome: ReplyOutcome, maxMs = 600_000): Promise<DeliveryStats> {
  let stats: DeliveryStats | undefined;
  let error: unknown;
  reply.finish(outcome).then((s) => (stats = s), (e) => (error = e));
  for (let spent = 0; stats === undefined && error === undefined; spent += 100) {
    if (spent > maxMs) throw new Error(`finish() did not resolve within ${maxMs} ms of fake time`);
    await advance(t, 100);
  }
  if (error) throw error;
  return stats!;
}

/** Run promises (e.g. several finish() calls) to the end while the fake clock runs. */
export async function settleOnClock<T>(t: TestContext, promises: Promise<T>[], maxMs = 600_000): Promise<T[]> {
  let result: T[] | undefined;
  let error: unknown;
  Promise.all(promises).then((r) => (result = r), (e) => (error = e ?? new Error('rejected')));
  for (let spent = 0; result === undefined && error === undefined; spent += 100) {
    if (spent > maxMs) throw new Error(`not settled within ${maxMs} ms of fake time`);
    await advance(t, 100);
  }
  if (error) throw error;
  return result!;
}
