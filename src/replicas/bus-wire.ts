/**
 * What a replica publishes on the bus, signed: `tb1.<hex HMAC-SHA256>.<JSON>`. The MAC covers the
 * channel and the exact JSON bytes sent (so nothing is re-serialized before it is checked, and a
 * message cannot be moved to another channel); the JSON carries a unique id and the time it was
 * sent, so a copy published again is refused (ReplayGuard). What fails any check is dropped
 * before it is parsed any further: the reason goes to the log and /metrics, never the body.
 */
import { randomUUID } from 'node:crypto';
import type { BusKey } from '../bus-key.js';

const VERSION = 'tb1';

/** Why a message was dropped (the `reason` label of turnbridge_untrusted_dropped_total). */
export type DropReason = 'unsigned' | 'forged' | 'malformed' | 'stale' | 'replayed';

export type Opened<T> = { ok: true; id: string; sentAt: number; msg: T } | { ok: false; reason: DropReason };

export function sealMessage(key: BusKey, channel: string, msg: object, now: number): string {
  const json = JSON.stringify({ ...msg, mid: randomUUID(), sentAt: now });
  return `${VERSION}.${key.mac('bus', [channel, json])}.${json}`;
}

/** Checks the signature (and the shape of what it covers); replays and age are ReplayGuard's. */
export function openMessage<T>(key: BusKey, channel: string, raw: string): Opened<T> {
  if (!raw.startsWith(`${VERSION}.`)) return { ok: false, reason: 'unsigned' };
  const dot = raw.indexOf('.', VERSION.length + 1);
  if (dot < 0) return { ok: false, reason: 'malformed' };
  const mac = raw.slice(VERSION.length + 1, dot);
  const json = raw.slice(dot + 1);
  if (!key.verify('bus', [channel, json], mac)) return { ok: false, reason: 'forged' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const p = parsed as { mid?: unknown; sentAt?: unknown };
  if (!parsed || typeof parsed !== 'object' || typeof p.mid !== 'string' || typeof p.sentAt !== 'number') return { ok: false, reason: 'malformed' };
  return { ok: true, id: p.mid, sentAt: p.sentAt, msg: parsed as T };
}

/**
 * Refuses a message id seen before, and a message sent more than `windowMs` from now (either way:
 * clocks of two hosts differ). Memory is bounded: past `maxIds`, the oldest ids are forgotten and
 * the time of the newest forgotten one becomes a floor, so nothing sent at or before it passes
 * again. A replay is therefore refused whether its id is still remembered or not.
 */
export class ReplayGuard {
  private readonly seen = new Map<string, number>();
  private floor = -Infinity;
  constructor(private readonly windowMs: number, private readonly maxIds: number, private readonly now: () => number) {}

  /** 'ok' (and remembered), or why not. */
  admit(id: string, sentAt: number): 'ok' | 'stale' | 'replayed' {
    const t = this.now();
    for (const [k, at] of this.seen) {
      if (at >= t - this.windowMs) break;
      this.seen.delete(k);
    }
    if (Math.abs(t - sentAt) > this.windowMs || sentAt <= this.floor) return 'stale';
    if (this.seen.has(id)) return 'replayed';
    this.seen.set(id, sentAt);
    while (this.seen.size > this.maxIds) {
      const [k, at] = this.seen.entries().next().value as [string, number];
      this.seen.delete(k);
      this.floor = Math.max(this.floor, at);
    }
    return 'ok';
  }

  get size(): number {
    return this.seen.size;
  }
}
