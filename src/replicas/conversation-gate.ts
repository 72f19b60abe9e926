/**
 * One turn at a time per conversation, in arrival order, across replicas: a ticket lock in
 * Redis. Each accepted message takes the conversation's next ticket (INCR: Redis orders the
 * arrivals of every replica); a turn may start when the conversation's "now serving" number
 * reaches its ticket, and advances it when it ends. Waiting is event-driven (pub/sub), with a
 * slow poll as a safety net for a lost message.
 *
 * A replica that dies while it serves a ticket does not block the conversation for good: the
 * ticket records its holder, and a waiter that finds the holder's heartbeat gone advances past
 * it (the crash recovery finalizes what that turn showed).
 *
 * Redis away (redis/ says degraded): take() refuses at once, and the turn runs without the gate
 * (bridge/turns/conversation-order.ts), rather than wait on a store that is not there.
 */
import type { Logger } from '../log.js';
import type { RedisConnections } from '../redis/index.js';

export interface Ticket {
  readonly key: string;
  readonly number: number;
  /** Tickets ahead of this one (running or waiting) when it was taken. */
  readonly ahead: number;
}

export interface ConversationGate {
  /** Take the next ticket of a conversation, as replica `holder`. */
  take(key: string, holder: string): Promise<Ticket>;
  /** Resolves when the ticket is served (every earlier ticket ended); rejects when `signal` aborts. */
  enter(ticket: Ticket, signal?: AbortSignal): Promise<void>;
  /** The ticket's turn ended (or never ran): the next one may start. Safe to call twice. */
  leave(ticket: Ticket): Promise<void>;
  close(): Promise<void>;
}

export interface ConversationGateOptions {
  /** The process's Redis connections (redis/). */
  redis: RedisConnections;
  logger: Logger;
  /** Whether a replica's heartbeat is live (the replica bus). */
  alive(replicaId: string): Promise<boolean>;
  prefix?: string;
  /** Safety-net poll while waiting (default 1 s). */
  pollMs?: number;
  /** Conversation keys expire after this long without a ticket (default 1 day). */
  ttlMs?: number;
}

/**
 * KEYS: serving, holders, done; ARGV: ticket, ttl. The ticket ended: when it is the one being
 * served, move on past it and past every later ticket that already ended (turns stopped while
 * they waited); when it is still ahead, remember it as ended for when its turn comes.
 */
const LEAVE = `
local serving = tonumber(redis.call('GET', KEYS[1]) or '1')
local t = tonumber(ARGV[1])
if t > serving then
  redis.call('HSET', KEYS[3], t, 1)
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
  return 0
end
if t < serving then return 0 end
redis.call('HDEL', KEYS[2], t)
serving = serving + 1
while redis.call('HEXISTS', KEYS[3], serving) == 1 do
  redis.call('HDEL', KEYS[3], serving)
  redis.call('HDEL', KEYS[2], serving)
  serving = serving + 1
end
redis.call('SET', KEYS[1], serving, 'PX', ARGV[2])
return 1`;

/** KEYS: next, serving, holders; ARGV: holder, ttl. Atomic, so no waiter sees a ticket without its holder. */
const TAKE = `
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[3], n, ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return {n, tonumber(redis.call('GET', KEYS[2]) or '1')}`;

export function createConversationGate(opts: ConversationGateOptions): ConversationGate {
  const prefix = opts.prefix ?? 'tb';
  const pollMs = opts.pollMs ?? 1_000;
  const ttl = opts.ttlMs ?? 86_400_000;
  const logger = opts.logger.child({ component: 'conversation-gate' });
  const redis = opts.redis.commands;
  const channel = `${prefix}:conv:advanced`;
  const k = (key: string) => ({
    next: `${prefix}:conv:${key}:next`, serving: `${prefix}:conv:${key}:serving`,
    holders: `${prefix}:conv:${key}:holders`, done: `${prefix}:conv:${key}:done`,
  });
  /** Waiters per conversation key, woken when it advances. */
  const waiters = new Map<string, Set<() => void>>();
  const wakeUp = (key: string): void => {
    for (const w of waiters.get(key) ?? []) w();
  };
  const subscribed = opts.redis.subscribe(channel, wakeUp);

  async function serving(key: string): Promise<number> {
    return Number((await redis.get(k(key).serving)) ?? 1);
  }

  /** Ticket `number` of `key` ended; wake the conversation's waiters when that moved it on. */
  async function ended(key: string, number: number): Promise<void> {
    const { serving: s, holders, done } = k(key);
    const moved = (await redis.eval(LEAVE, 3, s, holders, done, String(number), String(ttl))) === 1;
    if (moved) await redis.publish(channel, key);
  }

  return {
    async take(key, holder) {
      if (opts.redis.health === 'degraded') throw new Error('Redis is unreachable');
      await subscribed;
      const { next, serving: s, holders } = k(key);
      const [number, current] = (await redis.eval(TAKE, 3, next, s, holders, holder, String(ttl))) as [number, number];
      return { key, number, ahead: Math.max(0, number - current) };
    },

    async enter(ticket, signal) {
      for (;;) {
        signal?.throwIfAborted();
        const now = await serving(ticket.key);
        if (now >= ticket.number) return;
        // The ticket being served: is its replica still alive? A dead one is skipped.
        const holder = await redis.hget(k(ticket.key).holders, String(now));
        if (holder === null || !(await opts.alive(holder))) {
          logger.warn({ key: ticket.key, ticket: now, holder }, 'the replica serving this conversation is gone; moving on');
          await ended(ticket.key, now);
          continue;
        }
        await new Promise<void>((resolve) => {
          const set = waiters.get(ticket.key) ?? new Set();
          waiters.set(ticket.key, set);
          const wake = (): void => {
            clearTimeout(timer);
            set.delete(wake);
            if (set.size === 0) waiters.delete(ticket.key);
            signal?.removeEventListener('abort', wake);
            resolve();
          };
          const timer = setTimeout(wake, pollMs);
          set.add(wake);
          signal?.addEventListener('abort', wake, { once: true });
        });
      }
    },

    leave: (ticket) => ended(ticket.key, ticket.number),

    async close() {
      for (const set of waiters.values()) for (const w of set) w();
      opts.redis.unsubscribe(channel, wakeUp);
    },
  };
}
