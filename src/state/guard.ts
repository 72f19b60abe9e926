/**
 * The one guard every typed method of the state runs its store calls through: a failure, or a
 * store slower than the time bound, is logged (with what the caller does instead) and answers
 * the method's fallback, so a turn never fails because the state did; each method says what a
 * failure answers (state.ts). The records kept through Keyv (keyv-records.ts) hear of a store's
 * failure as Keyv's error event, logged the same way; the guard bounds their time all the same.
 */
import type { Logger } from '../log.js';

export interface Guard {
  /**
   * Run a store operation; on failure or past the time bound, log and answer `fallback`.
   * `what` says in the log what the caller does instead (default: it goes on without it).
   */
  run<T>(op: string, key: string, fn: () => Promise<T>, fallback: T, what?: string): Promise<T>;
  /** Resolves when every operation started so far has settled. */
  drain(): Promise<void>;
}

/** `timeoutMs` undefined = no time bound. */
export function createGuard(log: Logger, timeoutMs: number | undefined): Guard {
  const pending = new Set<Promise<unknown>>();
  return {
    async run<T>(op: string, key: string, fn: () => Promise<T>, fallback: T, what = 'going on without it'): Promise<T> {
      let timer: NodeJS.Timeout | undefined;
      let work: Promise<T>;
      try {
        work = fn();
      } catch (err) {
        log.error({ err, op, key }, `store failed; ${what}`);
        return fallback;
      }
      pending.add(work);
      const done = () => pending.delete(work);
      work.then(done, done);
      try {
        if (timeoutMs === undefined) return await work;
        return await Promise.race([
          work,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`store ${op} took longer than ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } catch (err) {
        log.error({ err, op, key }, `store failed; ${what}`);
        return fallback;
      } finally {
        clearTimeout(timer);
      }
    },
    async drain() {
      await Promise.allSettled([...pending]);
    },
  };
}

/**
 * Steps of one key run one after the other in this process (two quick clicks on one
 * conversation's rules both land; a reset and a session save never interleave); a key's entry
 * goes once its chain is idle.
 */
export function createKeyChains(): <T>(key: string, step: () => Promise<T>) => Promise<T> {
  const chains = new Map<string, Promise<unknown>>();
  return <T>(key: string, step: () => Promise<T>): Promise<T> => {
    const next = (chains.get(key) ?? Promise.resolve()).then(step, step);
    chains.set(key, next);
    const idle = () => { if (chains.get(key) === next) chains.delete(key); };
    next.then(idle, idle);
    return next;
  };
}
