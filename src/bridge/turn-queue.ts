/**
 * Per-conversation FIFO + a global cap on running turns. Turns of one conversation run one at a
 * time in arrival order; across conversations at most `maxConcurrent` run at once, and waiting
 * turns start in arrival order as slots free up.
 */
export interface QueueEntry {
  /** Conversation key. */
  readonly key: string;
  /** Called once when the entry gets a slot (synchronously, from pump()). */
  start(): void;
  /** Called when the entry's waiting position changes (1 = next). */
  onPosition(position: number): void;
}

export interface TurnQueue<E extends QueueEntry> {
  /** Add a turn unless its conversation already holds 1 + queueDepth turns. Call pump() after. */
  offer(entry: E): 'accepted' | 'busy';
  /** Start what can start, then tell waiting entries their (changed) positions. */
  pump(): void;
  /** A running entry ended: free its slot (call pump() after). */
  done(entry: E): void;
  /** Take a waiting entry out (stopped before it started). False when it is not waiting. */
  remove(entry: E): boolean;
  /** Take every waiting entry out (shutdown). */
  drain(): E[];
  positionOf(entry: E): number | undefined;
  readonly running: number;
  readonly waiting: number;
}

export function createTurnQueue<E extends QueueEntry>(opts: { maxConcurrent: number; queueDepth: number }): TurnQueue<E> {
  const waiting: E[] = [];
  const runningKeys = new Map<string, number>();
  const lastPosition = new Map<E, number>();
  let running = 0;

  const isRunning = (key: string) => (runningKeys.get(key) ?? 0) > 0;

  function positions(): Map<E, number> {
    const out = new Map<E, number>();
    const headPos = new Map<string, number>();
    const countInConv = new Map<string, number>();
    let eligibleRank = 0;
    for (const e of waiting) {
      const idx = countInConv.get(e.key) ?? 0;
      countInConv.set(e.key, idx + 1);
      if (isRunning(e.key)) {
        out.set(e, idx + 1);
      } else if (idx === 0) {
        eligibleRank++;
        headPos.set(e.key, eligibleRank);
        out.set(e, eligibleRank);
      } else {
        out.set(e, (headPos.get(e.key) ?? 1) + idx);
      }
    }
    return out;
  }

  return {
    offer(entry) {
      const inConv = (runningKeys.get(entry.key) ?? 0) + waiting.filter((e) => e.key === entry.key).length;
      if (inConv >= 1 + opts.queueDepth) return 'busy';
      waiting.push(entry);
      return 'accepted';
    },
    pump() {
      while (running < opts.maxConcurrent) {
        const i = waiting.findIndex((e) => !isRunning(e.key));
        if (i < 0) break;
        const [e] = waiting.splice(i, 1) as [E];
        lastPosition.delete(e);
        running++;
        runningKeys.set(e.key, (runningKeys.get(e.key) ?? 0) + 1);
        e.start();
      }
      for (const [e, pos] of positions()) {
        if (lastPosition.get(e) === pos) continue;
        lastPosition.set(e, pos);
        e.onPosition(pos);
      }
    },
    done(entry) {
      const n = runningKeys.get(entry.key) ?? 0;
      if (n <= 0) return;
      running--;
      if (n === 1) runningKeys.delete(entry.key);
      else runningKeys.set(entry.key, n - 1);
    },
    remove(entry) {
      const i = waiting.indexOf(entry);
      if (i < 0) return false;
      waiting.splice(i, 1);
      lastPosition.delete(entry);
      return true;
    },
    drain() {
      const all = waiting.splice(0, waiting.length);
      lastPosition.clear();
      return all;
    },
    positionOf(entry) {
      return positions().get(entry);
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
