/**
 * The replicas of one bridge talk through Redis: each announces itself with a heartbeat key
 * (a TTL that it renews), and a click or a Stop that lands on a replica which does not hold the
 * agent process is forwarded to the others over pub/sub, so the one that holds it decides.
 *
 * Forwarding is a request with a deadline: the receiving replica has already acknowledged the
 * platform (Slack's 3 s, Discord's interaction deadline), asks everyone, and takes the first
 * "handled" answer; no answer before the deadline means nobody holds it (the click expired).
 * Pub/sub loses what is published while a replica is away, which is right for clicks: a click
 * for a replica that is gone can only expire, and the crash recovery finalizes its prompts.
 *
 * Every message is signed with the bridge's key (bus-wire.ts): anyone who can reach Redis can
 * publish, and a forwarded click names who clicked, so an unsigned, forged, stale or replayed one
 * is dropped (logged without its body, counted by `onDropped`). Heartbeats are not signed: a
 * forged one can only make a replica look alive or gone (docs/security.md).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { BusKey } from '../bus-key.js';
import type { Logger } from '../log.js';
import type { RedisConnections } from '../redis/index.js';
import { openMessage, ReplayGuard, sealMessage, type DropReason } from './bus-wire.js';

/** What a replica publishes about itself, under its heartbeat key. */
export interface ReplicaInfo {
  id: string;
  startedAt: number;
  /** What it serves, e.g. ['slack', 'discord:0,1/2']. */
  serves: string[];
}

/** A forwarded request: a click or a Stop (any JSON the bridge puts in). */
export interface Forwarded<T> {
  from: string;
  body: T;
}


export interface ReplicaBus {
  readonly id: string;
  /** Resolves true once subscribed and announced (false when Redis did not answer in time). */
  ready(timeoutMs?: number): Promise<boolean>;
  /**
   * Ask the other replicas to handle `body`. Resolves with the answer of the one that handled
   * it, or undefined once `timeoutMs` passed without one (at once when Redis is away).
   */
  forward<T, R>(body: T, timeoutMs?: number): Promise<R | undefined>;
  /**
   * Serve requests forwarded by other replicas: `handler` answers undefined for what this
   * replica does not hold (nothing is sent back then), else the answer (JSON).
   */
  serve<T, R>(handler: (req: Forwarded<T>) => Promise<R | undefined>): void;
  /** Replicas whose heartbeat is live (this one included). */
  replicas(): Promise<ReplicaInfo[]>;
  /** Whether a replica's heartbeat is live. */
  alive(id: string): Promise<boolean>;
  /**
   * Replicas that announced themselves once and whose heartbeat is gone now (killed, or stopped):
   * what they held waits for a taker (takeover.ts). This replica is never among them.
   */
  departed(): Promise<string[]>;
  /** A departed replica's ledger was taken over: it is no longer listed as departed. */
  forget(id: string): Promise<void>;
  close(): Promise<void>;
}

export interface ReplicaBusOptions {
  /** The process's Redis connections (redis/): heartbeats and publishes on its commands, pub/sub on its subscriber. */
  redis: RedisConnections;
  logger: Logger;
  /** The bridge's key (TURNBRIDGE_BUS_KEY): every message is signed with it and checked against it. */
  key: BusKey;
  /** A message was dropped (metrics: turnbridge_untrusted_dropped_total). */
  onDropped?: (reason: DropReason) => void;
  /** How far from now a message's send time may be (default 60 s; clocks of two hosts differ). */
  replayWindowMs?: number;
  /** Message ids remembered against replays (default 10,000; older ones are refused as stale). */
  replayMemory?: number;
  /** This replica's name (TURNBRIDGE_REPLICA_ID, config.replicaId); default host name, pid and a random suffix. */
  id?: string;
  serves?: string[];
  /** Key prefix (default `tb`). */
  prefix?: string;
  /** Heartbeat TTL (default 15 s), renewed every third of it. A dead replica is noticed after it. */
  heartbeatTtlMs?: number;
  now?: () => number;
}

export function defaultReplicaId(): string {
  return `${hostname()}-${process.pid}-${randomUUID().slice(0, 6)}`;
}

type Wire =
  | { kind: 'request'; rid: string; from: string; body: unknown }
  | { kind: 'answer'; rid: string; from: string; answer: unknown };

export function createReplicaBus(opts: ReplicaBusOptions): ReplicaBus {
  const id = opts.id ?? defaultReplicaId();
  const prefix = opts.prefix ?? 'tb';
  const ttl = opts.heartbeatTtlMs ?? 15_000;
  const now = opts.now ?? Date.now;
  const logger = opts.logger.child({ component: 'replicas', replica: id });
  const info: ReplicaInfo = { id, startedAt: now(), serves: opts.serves ?? [] };
  // Commands wait for a connection through one reconnect attempt at most, then fail (redis/): a
  // replica never blocks a click on a Redis that is away (forward() has its own deadline too).
  const { redis } = opts;
  const pub = redis.commands;

  const requests = `${prefix}:replicas:requests`;
  const answers = `${prefix}:replicas:answers:${id}`;
  const beatKey = (rid: string) => `${prefix}:replica:${rid}`;
  /** Every replica that ever beat and was not taken over yet (a set: departed = known minus live). */
  const knownKey = `${prefix}:replicas:known`;
  const waiting = new Map<string, (a: unknown) => void>();
  let handler: ((req: Forwarded<unknown>) => Promise<unknown>) | undefined;
  const guard = new ReplayGuard(opts.replayWindowMs ?? 60_000, opts.replayMemory ?? 10_000, now);
  const publish = (channel: string, msg: Wire) => redis.publish(channel, sealMessage(opts.key, channel, msg, now()));
  /** The message if it is signed with the key, fresh and new; else undefined (dropped, logged, counted). */
  const open = (channel: string, raw: string): Wire | undefined => {
    const opened = openMessage<Wire>(opts.key, channel, raw);
    const admitted = opened.ok ? guard.admit(opened.id, opened.sentAt) : opened.reason;
    if (admitted === 'ok' && opened.ok) return opened.msg;
    const reason: DropReason = admitted === 'ok' ? 'malformed' : admitted;
    // Never the body: it is what an attacker chose, and a forwarded click can carry a form's text.
    logger.warn({ channel, reason, bytes: raw.length }, `replica bus: dropped a message (${reason}): only messages signed with this bridge's TURNBRIDGE_BUS_KEY, sent once and recently, are acted on`);
    opts.onDropped?.(reason);
    return undefined;
  };

  const onMessage = (channel: string) => (raw: string): void => {
    const msg = open(channel, raw);
    if (!msg) return;
    if (msg.kind === 'answer' && channel === answers) {
      waiting.get(msg.rid)?.(msg.answer);
      return;
    }
    if (msg.kind !== 'request' || msg.from === id || !handler) return;
    void handler({ from: msg.from, body: msg.body }).then((answer) => {
      if (answer === undefined) return;
      return publish(`${prefix}:replicas:answers:${msg.from}`, { kind: 'answer', rid: msg.rid, from: id, answer });
    }).catch((err: unknown) => logger.warn({ err }, 'replica bus: forwarded request failed'));
  };
  const listening: Array<[string, (raw: string) => void]> = [[requests, onMessage(requests)], [answers, onMessage(answers)]];
  const subscribed = Promise.all(listening.map(([channel, fn]) => redis.subscribe(channel, fn))).then((ok) => ok.every(Boolean));

  async function beat(): Promise<void> {
    try {
      await pub.multi().set(beatKey(id), JSON.stringify(info), 'PX', ttl).sadd(knownKey, id).exec();
    } catch (err) {
      // Said once by redis/ when Redis goes away; here only while it is thought up.
      if (redis.health === 'up') logger.warn({ err: (err as Error).message }, 'replica heartbeat not written');
    }
  }
  const announced = beat();
  const timer = setInterval(() => void beat(), Math.max(50, Math.floor(ttl / 3)));
  timer.unref();

  return {
    id,
    async ready(timeoutMs = 3_000) {
      let t: NodeJS.Timeout | undefined;
      const ok = await Promise.race([
        Promise.all([subscribed, announced]).then(([s]) => s),
        new Promise<boolean>((r) => (t = setTimeout(() => r(false), timeoutMs))),
      ]);
      clearTimeout(t);
      return ok;
    },
    async forward<T, R>(body: T, timeoutMs = 1_500): Promise<R | undefined> {
      // Redis away: nobody can be asked, so nobody holds it (the click expires, as for a departed replica).
      if (redis.health === 'degraded') return undefined;
      const rid = randomUUID();
      return new Promise<R | undefined>((resolve) => {
        const done = (a: unknown): void => {
          clearTimeout(t);
          waiting.delete(rid);
          resolve(a as R | undefined);
        };
        const t = setTimeout(() => done(undefined), timeoutMs);
        waiting.set(rid, done);
        publish(requests, { kind: 'request', rid, from: id, body }).catch(() => done(undefined));
      });
    },
    serve(h) {
      handler = h as (req: Forwarded<unknown>) => Promise<unknown>;
    },
    async replicas() {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await pub.scan(cursor, 'MATCH', beatKey('*'), 'COUNT', 100);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== '0');
      const values = keys.length ? await pub.mget(...keys) : [];
      return values.flatMap((v) => {
        try {
          return v === null ? [] : [JSON.parse(v) as ReplicaInfo];
        } catch {
          return []; // not a heartbeat this bridge wrote
        }
      });
    },
    async alive(rid) {
      return (await pub.exists(beatKey(rid))) === 1;
    },
    async departed() {
      const known = (await pub.smembers(knownKey)).filter((r) => r !== id);
      if (known.length === 0) return [];
      const live = await pub.mget(...known.map(beatKey));
      return known.filter((_, i) => live[i] === null);
    },
    async forget(rid) {
      await pub.srem(knownKey, rid);
    },
    async close() {
      clearInterval(timer);
      for (const done of waiting.values()) done(undefined);
      // A replica that leaves on purpose says so at once instead of waiting for the TTL.
      for (const [channel, fn] of listening) redis.unsubscribe(channel, fn);
      await pub.del(beatKey(id)).catch(() => undefined);
    },
  };
}
