/**
 * The one owner of this process's Redis connections (ioredis, the client Bottleneck's clustering
 * and redis-semaphore need): one command connection shared by every feature (the state, the
 * replica bus's publishes and heartbeats, the conversation gate, the takeover claims, the shared
 * slots), one subscriber connection for pub/sub (the bus, the gate), and, asked for by the shared
 * budgets, Bottleneck's connection on the same client (it adds its own subscriber, a duplicate of
 * the command connection: same URL, TLS and ACL user).
 *
 * One health value, decided here from the command connection and nowhere else: `connecting`
 * until it is first ready (through one failed attempt), `up` while it is, `degraded` from the
 * moment it closes (or a second attempt fails to connect) until it is ready again; ioredis
 * reconnects by itself meanwhile. Each feature
 * subscribes (onHealth) and says what it does instead while degraded: the state answers its
 * fallbacks, the budgets pace locally, the shared cap is the local one, the gate lets turns run
 * unordered, forwarding answers "nobody holds it", takeover waits.
 *
 * A command waits through one reconnect attempt at most, then fails (maxRetriesPerRequest 1),
 * and a command in flight when the connection drops fails rather than being sent again
 * (autoResendUnfulfilledCommands off: a write is never applied twice behind its caller's back).
 */
import Bottleneck from 'bottleneck';
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../log.js';

export type RedisHealth = 'connecting' | 'up' | 'degraded';

export interface RedisConnections {
  /** Commands (never put in subscriber mode). */
  readonly commands: Redis;
  readonly health: RedisHealth;
  /** Told of each change of health (`err`: what made it degraded); returns how to stop listening. */
  onHealth(fn: (health: RedisHealth, err?: Error) => void): () => void;
  /** Resolves true once up; false when it is degraded first, or `timeoutMs` passed. */
  ready(timeoutMs?: number): Promise<boolean>;
  /**
   * Messages of `channel` go to `handler` (subscribed again after every reconnect). Resolves true
   * once Redis confirmed the subscription, false when it could not be made now.
   */
  subscribe(channel: string, handler: (message: string) => void): Promise<boolean>;
  /** That handler hears no more (the channel is left once nobody here listens to it). */
  unsubscribe(channel: string, handler: (message: string) => void): void;
  /** Publish on the command connection: resolves how many subscribers got it. */
  publish(channel: string, message: string): Promise<number>;
  /** Bottleneck's connection on the command client (one per process; closed with the rest). */
  bottleneck(): Bottleneck.IORedisConnection;
  /** Disconnect everything (features close first: this is the last step). */
  close(): Promise<void>;
}

export interface RedisConnectOptions {
  logger: Logger;
  /** Give up one connection attempt after this long (default 3000 ms). */
  connectTimeoutMs?: number;
  /** Reconnect after failures at all (default true; a one-shot check like the doctor's says no). */
  reconnect?: boolean;
}

/** The URL without its password, for logs. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '[redis url]';
  }
}

export function connectRedis(url: string, opts: RedisConnectOptions): RedisConnections {
  const log = opts.logger.child({ component: 'redis' });
  const options: RedisOptions = {
    connectTimeout: opts.connectTimeoutMs ?? 3_000,
    maxRetriesPerRequest: 1,
    autoResendUnfulfilledCommands: false,
    retryStrategy: opts.reconnect === false ? () => null : (times) => Math.min(50 * 2 ** Math.min(times, 6), 2_000),
  };
  const commands = new Redis(url, options);
  const sub = commands.duplicate();
  let health: RedisHealth = 'connecting';
  let closing = false;
  let lastError: Error | undefined;
  const listeners = new Set<(h: RedisHealth, err?: Error) => void>();
  const handlers = new Map<string, Set<(message: string) => void>>();
  let limiterConnection: Bottleneck.IORedisConnection | undefined;

  const set = (next: RedisHealth): void => {
    if (next === health || closing) return;
    const was = health;
    health = next;
    if (next === 'up') log.info({ url: redactedUrl(url), was }, 'redis: connected');
    else log.warn({ url: redactedUrl(url), err: lastError?.message }, 'redis: unreachable; features that share through it go on locally until it is back');
    for (const fn of [...listeners]) fn(next, next === 'degraded' ? lastError : undefined);
  };
  // Before the first connection, one failed attempt is not yet degraded (a command waits through
  // one reconnect attempt too): a slow start, say a busy event loop past connectTimeout, is not
  // an outage. Once up, the first close is.
  let failedAttempts = 0;
  commands.on('ready', () => {
    failedAttempts = 0;
    set('up');
  });
  commands.on('close', () => {
    if (health !== 'connecting' || ++failedAttempts > 1) set('degraded');
  });
  commands.on('end', () => set('degraded'));
  commands.on('error', (err: Error) => {
    lastError = err;
    log.debug({ err: err.message }, 'redis: connection error');
  });
  sub.on('error', (err: Error) => log.debug({ err: err.message }, 'redis: subscriber connection error'));
  sub.on('message', (channel: string, message: string) => {
    for (const h of handlers.get(channel) ?? []) h(message);
  });
  // A subscription asked for while Redis was away is made once the subscriber is back
  // (ioredis re-subscribes only what it had confirmed).
  sub.on('ready', () => {
    if (handlers.size) void sub.subscribe(...handlers.keys()).catch(() => undefined);
  });

  const connections: RedisConnections = {
    commands,
    get health() {
      return health;
    },
    onHealth(fn) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
    ready(timeoutMs = 3_000) {
      if (health === 'up') return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const done = (ok: boolean) => {
          clearTimeout(timer);
          stop();
          resolve(ok);
        };
        const stop = connections.onHealth((h) => done(h === 'up'));
        const timer = setTimeout(() => done(false), timeoutMs);
      });
    },
    async subscribe(channel, handler) {
      const forChannel = handlers.get(channel) ?? new Set();
      handlers.set(channel, forChannel);
      forChannel.add(handler);
      try {
        await sub.subscribe(channel);
        return true;
      } catch (err) {
        log.warn({ channel, err: (err as Error).message }, 'redis: subscribe failed; made again once Redis is back');
        return false;
      }
    },
    unsubscribe(channel, handler) {
      const forChannel = handlers.get(channel);
      forChannel?.delete(handler);
      if (forChannel?.size === 0) {
        handlers.delete(channel);
        void sub.unsubscribe(channel).catch(() => undefined);
      }
    },
    publish: (channel, message) => commands.publish(channel, message),
    bottleneck() {
      limiterConnection ??= new Bottleneck.IORedisConnection({ client: commands });
      return limiterConnection;
    },
    async close() {
      closing = true;
      listeners.clear();
      handlers.clear();
      // Bottleneck's disconnect ends the command client with its own subscriber.
      if (limiterConnection) await limiterConnection.disconnect(false).catch(() => undefined);
      sub.disconnect();
      commands.disconnect();
    },
  };
  return connections;
}

/** What a feature that shares through Redis says of itself: `shared` while Redis is up. */
export type SharingState = 'connecting' | 'shared' | 'degraded';

/**
 * The health as such a feature says it, kept current; `change` hears each move, with what it was
 * and the error that made it degraded. `stop` ends the listening.
 */
export function followSharing(redis: RedisConnections, change: (next: SharingState, was: SharingState, err?: Error) => void): { readonly state: SharingState; stop(): void } {
  const of = (h: RedisHealth): SharingState => (h === 'up' ? 'shared' : h);
  let state = of(redis.health);
  const stop = redis.onHealth((health, err) => {
    const next = of(health);
    if (next === state) return;
    const was = state;
    state = next;
    change(next, was, err);
  });
  return { get state() { return state; }, stop };
}
