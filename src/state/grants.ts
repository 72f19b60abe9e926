/**
 * Access grants made with `turnbridge allow slack:U0123` (or an admin's `allow` command in chat),
 * each audited (grant and removal, audit.ts):
 * identities added to the configured access list, kept in the bridge state (SQLite in WAL mode
 * under the data dir, or Redis with REDIS_URL) beside rules and notices. A grant is committed
 * before `add` resolves, so what `turnbridge allow` reports saved survives a kill -9, and the
 * running bridge reads it on the person's next message (the CLI opens the same database).
 */
import { randomInt } from 'node:crypto';
import type { Logger } from '../log.js';
import type { AuditPerson, AuditTrail } from './audit.js';
import type { Guard } from './guard.js';
import { keyvRecords } from './keyv-records.js';
import type { StateStore } from './store.js';

export interface AccessGrant {
  /** Who granted it (`cli:<shell user>`, or the admin's `platform:id`). */
  by: string;
  /** ms since the epoch. */
  at: number;
  /** The person's name when the grant came from a pairing code that had it. */
  name?: string;
  via?: 'cli' | 'chat' | 'pairing';
}

/** What a pairing code stands for: who asked, and when. */
export interface PairingRequest {
  identity: string;
  /** Display name the platform showed when they asked. */
  name?: string;
  /** ms since the epoch. */
  at: number;
}

export type GrantResult = 'added' | 'already' | 'failed';

/**
 * Grants by `platform:id`. Never throws: a store failure is logged and reads as "not granted".
 * Adding and removing are audited (audit.ts).
 */
export interface AccessGrants {
  /** Whether any of these identities was granted. */
  hasAny(identities: readonly string[]): Promise<boolean>;
  /** `added` once the store holds it (committed, or acknowledged by Redis); `already` when it was there (nothing written). */
  add(identity: string, by: AuditPerson, how?: { via?: AccessGrant['via']; name?: string }): Promise<GrantResult>;
  /** Resolves true when a grant was there and is gone. */
  remove(identity: string, by: AuditPerson): Promise<boolean>;
  /** Every grant, oldest first; undefined when the store failed or cannot list. */
  list(): Promise<Array<AccessGrant & { identity: string }> | undefined>;
  /**
   * A pairing code for this person (OpenClaw-style DM pairing): shown in the way-in reply, valid
   * for an hour; `turnbridge allow <code>` grants the person it stands for. Undefined on a store failure.
   */
  pairingCode(identity: string, who?: { name?: string }): Promise<string | undefined>;
  /** Whom a pairing code stands for, without using it up (shown before the admin confirms). */
  peek(code: string): Promise<PairingRequest | undefined>;
  /** Whom a pairing code stands for, and the code is used up; undefined when it is not (or no longer) there. */
  redeem(code: string): Promise<PairingRequest | undefined>;
}

/** Code alphabet without look-alikes (no 0/O, 1/I/L). */
const CODE_CHARS = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE = /^[A-HJKMNP-Z2-9]{6}$/;
const PAIRING_TTL_MS = 60 * 60_000;
const NOT_GRANTED = 'treating the person as not granted';
/** A person's grant: `access:<identity>` in the state's kv. */
const GRANTS = 'access';
const GRANT_PREFIX = `${GRANTS}:`;

/** A person as a grant's `by` string. */
export const grantor = (p: AuditPerson): string => `${p.platform}:${p.id}`;

function readPairing(v: unknown): PairingRequest | undefined {
  const e = v as Partial<PairingRequest> | undefined;
  if (!e || typeof e.identity !== 'string') return undefined;
  return { identity: e.identity, ...(typeof e.name === 'string' ? { name: e.name } : {}), at: typeof e.at === 'number' ? e.at : 0 };
}

/**
 * Grants (`access:<identity>`) and pairing codes (`access-pair:<CODE>`) in the `kv` namespace,
 * through Keyv (keyv-records.ts); the list reads the namespace's entries. Every grant and removal
 * audited (awaited: a CLI exits after it).
 */
export function grantsOn(store: StateStore, guard: Guard, audit: AuditTrail, log: Logger, now: () => number): AccessGrants {
  const grants = keyvRecords<unknown>(store, guard, log, { ns: 'kv', namespace: GRANTS, noun: 'grant', what: NOT_GRANTED });
  const codes = keyvRecords<unknown>(store, guard, log, { ns: 'kv', namespace: 'access-pair', noun: 'pairing code', what: NOT_GRANTED });
  const has = async (id: string) => {
    const g = await grants.get(id);
    return Boolean(g && typeof g === 'object');
  };
  return {
    async hasAny(ids) {
      for (const id of ids) if (await has(id)) return true;
      return false;
    },
    async add(id, by, how = {}) {
      if (await has(id)) return 'already';
      const via = how.via ?? (by.platform === 'cli' ? 'cli' : 'chat');
      const grant: AccessGrant = { by: grantor(by), at: now(), via, ...(how.name ? { name: how.name } : {}) };
      if (!(await grants.set(id, grant))) return 'failed';
      await audit.append({ kind: 'grant', at: grant.at, identity: id, ...(how.name ? { name: how.name } : {}), by, via });
      return 'added';
    },
    async remove(id, by) {
      const gone = await grants.delete(id);
      if (gone) await audit.append({ kind: 'grant-removed', at: now(), identity: id, by });
      return gone;
    },
    async list() {
      const rows = await guard.run('list grants', GRANT_PREFIX, async () => (await store.entries<AccessGrant>('kv')).filter((e) => e.key.startsWith(GRANT_PREFIX)), undefined, NOT_GRANTED);
      if (!rows) return undefined;
      return rows.filter((r) => r.value && typeof r.value === 'object')
        .map((r) => ({ ...r.value, identity: r.key.slice(GRANT_PREFIX.length) }))
        .sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
    },
    async pairingCode(id, who = {}) {
      const code = Array.from({ length: 6 }, () => CODE_CHARS[randomInt(CODE_CHARS.length)]).join('');
      const entry: PairingRequest = { identity: id, ...(who.name ? { name: who.name } : {}), at: now() };
      return (await codes.set(code, entry, PAIRING_TTL_MS)) ? code : undefined;
    },
    async peek(code) {
      return readPairing(await codes.get(code.toUpperCase()));
    },
    async redeem(code) {
      const entry = readPairing(await codes.get(code.toUpperCase()));
      if (!entry) return undefined;
      // Whoever removes it redeems it: two `turnbridge allow CODE` at once grant once.
      return (await codes.delete(code.toUpperCase())) ? entry : undefined;
    },
  };
}
