/**
 * Access grants made with `turnbridge allow slack:U0123` (or an admin's `allow` command in chat):
 * identities added to the configured access list, kept in the bridge state (SQLite in WAL mode
 * under the data dir, or Redis with REDIS_URL) beside rules and notices. A grant is committed
 * before `add` resolves, so what `turnbridge allow` reports saved survives a kill -9, and the
 * running bridge reads it on the person's next message (the CLI opens the same database).
 * Grants kept by older versions (`<data dir>/access`, Redis `turnbridge:access`) move in once, at start-up.
 */
import { randomInt } from 'node:crypto';
import type { Logger } from '../log.js';
import { createState, type BridgeState } from '../state/index.js';
import { grantKey, migrateOldGrants } from './access-grants-migration.js';
import type { BridgeConfig } from './api.js';
import { createStateKv, type KvStore } from './kv.js';

export interface AccessGrant {
  /** Who granted it (`cli`, or the admin's `platform:id`). */
  by: string;
  /** ms since the epoch. */
  at: number;
}

/** Grants by `platform:id`. Never throws: a store failure is logged and reads as "not granted". */
export interface AccessGrants {
  /** Whether any of these identities was granted. */
  hasAny(identities: readonly string[]): Promise<boolean>;
  /** Resolves true when the store holds the grant (committed, or acknowledged by Redis). */
  add(identity: string, by: string): Promise<boolean>;
  /** Resolves true when a grant was there and is gone. */
  remove(identity: string): Promise<boolean>;
  /**
   * A pairing code for this person (OpenClaw-style DM pairing): shown in the way-in reply, valid
   * for an hour; `turnbridge allow <code>` grants the person it stands for. Undefined on a store failure.
   */
  pairingCode(identity: string): Promise<string | undefined>;
  /** The identity a pairing code stands for (and the code is used up), or undefined. */
  redeem(code: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Code alphabet without look-alikes (no 0/O, 1/I/L). */
const CODE_CHARS = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE = /^[A-HJKMNP-Z2-9]{6}$/;
const PAIRING_TTL_MS = 60 * 60_000;
const NOT_GRANTED = 'treating the person as not granted';

const pairKey = (code: string): string => `access-pair:${code.toUpperCase()}`;

/** Grants on a KvStore (the bridge state's, or an in-memory one in tests). `ready` is awaited first (the migration). */
export function grantsOnKv(kv: KvStore, opts: { now?: () => number; ready?: Promise<unknown>; close?: () => Promise<void> } = {}): AccessGrants {
  const now = opts.now ?? Date.now;
  const ready = opts.ready ?? Promise.resolve();
  return {
    async hasAny(ids) {
      await ready;
      for (const id of ids) {
        const g = await kv.get<AccessGrant>(grantKey(id));
        if (g && typeof g === 'object') return true;
      }
      return false;
    },
    async add(id, by) {
      await ready;
      return kv.set(grantKey(id), { by, at: now() } satisfies AccessGrant);
    },
    async remove(id) {
      await ready;
      return kv.delete(grantKey(id));
    },
    async pairingCode(id) {
      const code = Array.from({ length: 6 }, () => CODE_CHARS[randomInt(CODE_CHARS.length)]).join('');
      return (await kv.set(pairKey(code), { identity: id }, PAIRING_TTL_MS)) ? code : undefined;
    },
    async redeem(code) {
      const entry = await kv.get<{ identity?: string }>(pairKey(code));
      if (!entry || typeof entry.identity !== 'string') return undefined;
      // Whoever removes it redeems it: two `turnbridge allow CODE` at once grant once.
      return (await kv.delete(pairKey(code))) ? entry.identity : undefined;
    },
    close: async () => {
      await ready.catch(() => undefined);
      await opts.close?.();
    },
  };
}

/** The bridge's grants, on its state (closed by its owner, not here); migrates the old grants file first. */
export function accessGrantsOn(state: BridgeState, config: Pick<BridgeConfig, 'dataDir' | 'redisUrl'>, logger: Logger, opts: { now?: () => number } = {}): AccessGrants {
  const log = logger.child({ component: 'access-grants' });
  const kv = createStateKv(state.store, log, { what: NOT_GRANTED });
  const ready = migrateOldGrants(config, kv, log);
  return grantsOnKv(kv, { ...opts, ready });
}

/**
 * Grants for a process that has no bridge state of its own (`turnbridge allow`, tests): opens the
 * state on first use (a data dir that cannot be made reads as "not saved", with the reason logged)
 * and closes it on close().
 */
export function createAccessGrants(config: Pick<BridgeConfig, 'redisUrl' | 'dataDir'>, logger: Logger, opts: { now?: () => number } = {}): AccessGrants {
  let opened: { state: BridgeState; grants: AccessGrants } | undefined;
  let failed = false;
  const log = logger.child({ component: 'access-grants' });
  const open = (): AccessGrants | undefined => {
    if (!opened && !failed) {
      try {
        const state = createState(config, logger);
        opened = { state, grants: accessGrantsOn(state, config, logger, opts) };
      } catch (err) {
        failed = true;
        log.error({ err }, `the bridge state could not be opened; ${NOT_GRANTED}`);
      }
    }
    return opened?.grants;
  };
  return {
    hasAny: async (ids) => (await open()?.hasAny(ids)) ?? false,
    add: async (id, by) => (await open()?.add(id, by)) ?? false,
    remove: async (id) => (await open()?.remove(id)) ?? false,
    pairingCode: async (id) => open()?.pairingCode(id),
    redeem: async (code) => open()?.redeem(code),
    async close() {
      if (!opened) return;
      await opened.grants.close();
      await opened.state.close().catch(() => undefined);
    },
  };
}
