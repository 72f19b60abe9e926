/**
 * Per-conversation FIFO + a global cap on running turns. Turns of one conversation run one at a
 * time in arrival order; across conversations at most `maxConcurrent` run at once, and waiting
 * turns start in arrival order as slots free up. Per person (`owner`), at most `runningPerUser`
 * run and `waitingPerUser` wait; at most `maxWaiting` wait in all. A turn blocked on a
 * permission prompt may `park`: it gives its slot and its owner's share back (up to `maxParked`
 * at once) so one unanswered prompt does not hold a slot for everyone else until it times out.
 * Once decided it `unpark`s: it takes a slot again as soon as one is free, before any waiting
 * turn, so `maxConcurrent` and `runningPerUser` hold at every moment.
 *
 * With `permits` (several replicas, a cap shared by all: replicas/shared-slots.ts) a turn also
 * needs a permit to start or resume; it stays waiting, in its place, until one is there, and
 * gives it back whenever it gives its slot back (done, park).
 */
export interface QueueEntry {
  /** Conversation key. */
  readonly key: string;
  /** The person (`platform:id`) the turn belongs to. */
  readonly owner: string;
  /** Called once when the entry gets a slot (synchronously, from pump()). */
  start(): void;
  /** Called when the entry's waiting position changes (1 = next). */
  onPosition(position: number): void;
  /**
   * Several replicas: true while an earlier turn of the conversation runs on another replica.
   * Such an entry waits without a slot (holding one could deadlock replicas); pump() when it clears.
   */
  readonly gated?: boolean;
}

/** busy: the conversation is full; user-busy: the person holds their share; full: the bridge-wide wait list is. */
export type OfferResult = 'accepted' | 'busy' | 'user-busy' | 'full';

/** Slots beyond this queue's own (a cap shared by replicas): the queue decides who gets them. */
export interface SlotPermits<P> {
  /** A permit free now; undefined: none yet (the owner pumps again once one is). */
  take(): P | undefined;
  release(permit: P): void;
}

export interface QueueLimits {
  maxConcurrent: number;
  queueDepth: number;
  runningPerUser?: number;
  waitingPerUser?: number;
  maxWaiting?: number;
  maxParked?: number;
  permits?: SlotPermits<unknown>;
}

export interface TurnQueue<E extends QueueEntry> {
  /** Add a turn unless a bound is reached (see OfferResult). Call pump() after. */
  offer(entry: E): OfferResult;
  /** Start what can start, then tell waiting entries their (changed) positions. */
  pump(): void;
  /** A running entry ended: free its slot (call pump() after). */
  done(entry: E): void;
  /** Take a waiting entry out (stopped before it started). False when it is not waiting. */
  remove(entry: E): boolean;
  /** A running entry waits on a person (a prompt): free its slot and owner share if parking room is left. True when parked. */
  park(entry: E): boolean;
  /**
   * A parked entry goes on: resolves once it holds a slot again (at once when one is free, else
   * first in line, before waiting entries; within the owner's share too). Resolves at once for
   * an entry that is not parked, and when the entry is done() meanwhile.
   */
  unpark(entry: E): Promise<void>;
  /** Take every waiting entry out (shutdown). */
  drain(): E[];
  positionOf(entry: E): number | undefined;
  readonly running: number;
  /** Entries parked on a prompt (they hold no slot; decided ones wait here for a slot again). */
  readonly parked: number;
  readonly waiting: number;
}

export function createTurnQueue<E extends QueueEntry>(opts: QueueLimits): TurnQueue<E> {
  const waiting: E[] = [];
  const runningKeys = new Map<string, number>();
  const runningOwners = new Map<string, number>();
  const parked = new Set<E>();
  /** Parked entries whose person decided, waiting for a slot (in order), with their waiter. */
  const resuming = new Map<E, () => void>();
  const lastPosition = new Map<E, number>();
  let running = 0;
  const perUser = opts.runningPerUser ?? Infinity;
  const waitPerUser = opts.waitingPerUser ?? Infinity;
  const maxWaiting = opts.maxWaiting ?? Infinity;
  const maxParked = opts.maxParked ?? 0;
  /** Permits of running (not parked) entries. */
  const permits = new Map<E, unknown>();
  const takePermit = (e: E): boolean => {
    if (!opts.permits) return true;
    const p = opts.permits.take();
    if (p === undefined) return false;
    permits.set(e, p);
    return true;
  };
  const givePermit = (e: E): void => {
    if (!permits.has(e)) return;
    const p = permits.get(e);
    permits.delete(e);
    opts.permits?.release(p);
  };

  const isRunning = (key: string) => (runningKeys.get(key) ?? 0) > 0;
  const bump = (m: Map<string, number>, k: string, d: number) => {
    const n = (m.get(k) ?? 0) + d;
    if (n <= 0) m.delete(k);
    else m.set(k, n);
  };
  const canStart = (e: E) => !e.gated && !isRunning(e.key) && (runningOwners.get(e.owner) ?? 0) < perUser;

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

  const queue: TurnQueue<E> = {
    offer(entry) {
      const inConv = (runningKeys.get(entry.key) ?? 0) + waiting.filter((e) => e.key === entry.key).length;
      if (inConv >= 1 + opts.queueDepth) return 'busy';
      const mine = waiting.filter((e) => e.owner === entry.owner).length;
      const startsNow = running < opts.maxConcurrent && canStart(entry) && mine === 0;
      if (!startsNow && mine >= waitPerUser) return 'user-busy';
      if (!startsNow && waiting.length >= maxWaiting) return 'full';
      waiting.push(entry);
      return 'accepted';
    },
    pump() {
      // decided prompts first: their agents already run and wait only for the slot
      for (const [e, resume] of resuming) {
        if (running >= opts.maxConcurrent) break;
        if ((runningOwners.get(e.owner) ?? 0) >= perUser) continue;
        if (!takePermit(e)) break;
        resuming.delete(e);
        parked.delete(e);
        running++;
        bump(runningOwners, e.owner, 1);
        resume();
      }
      while (running < opts.maxConcurrent) {
        const i = waiting.findIndex(canStart);
        if (i < 0 || !takePermit(waiting[i]!)) break;
        const [e] = waiting.splice(i, 1) as [E];
        lastPosition.delete(e);
        running++;
        bump(runningKeys, e.key, 1);
        bump(runningOwners, e.owner, 1);
        e.start();
      }
      for (const [e, pos] of positions()) {
        if (lastPosition.get(e) === pos) continue;
        lastPosition.set(e, pos);
        e.onPosition(pos);
      }
    },
    done(entry) {
      if ((runningKeys.get(entry.key) ?? 0) <= 0) return;
      bump(runningKeys, entry.key, -1);
      const resume = resuming.get(entry);
      resuming.delete(entry);
      resume?.();
      // a parked entry holds neither a slot nor its owner's share
      if (parked.delete(entry)) return;
      givePermit(entry);
      bump(runningOwners, entry.owner, -1);
      running--;
    },
    park(entry) {
      if (parked.has(entry) || parked.size >= maxParked || (runningKeys.get(entry.key) ?? 0) <= 0) return false;
      parked.add(entry);
      givePermit(entry);
      running--;
      bump(runningOwners, entry.owner, -1);
      return true;
    },
    unpark(entry) {
      if (!parked.has(entry)) return Promise.resolve();
      const waiting = resuming.get(entry);
      if (waiting) return new Promise((resolve) => resuming.set(entry, () => { waiting(); resolve(); }));
      return new Promise<void>((resolve) => {
        resuming.set(entry, resolve);
        queue.pump();
      });
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
    get parked() {
      return parked.size;
    },
    get waiting() {
      return waiting.length;
    },
  };
  return queue;
}
