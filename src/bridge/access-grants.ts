/**
 * Access grants made with `turnbridge allow slack:U0123` (or an admin's `allow` command in chat):
 * identities added to the configured access list, kept in the bridge's store so they survive a
 * restart and take effect without one. Another process (the CLI) writes them, so the embedded
 * store keeps one file per grant and reads it on each check; with REDIS_URL they live in Redis
 * beside the sessions (namespace turnbridge:access).
 */
import { randomInt } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Keyv from 'keyv';
import { KeyvFile } from 'keyv-file';
import KeyvRedis from '@keyv/redis';
import type { Logger } from '../log.js';
import type { BridgeConfig } from './api.js';

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
  /** Resolves true when the store accepted the grant. */
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

function buildKeyv(config: Pick<BridgeConfig, 'redisUrl' | 'dataDir'>): Keyv {
  if (config.redisUrl) {
    const store = new KeyvRedis(config.redisUrl, { throwOnConnectError: false, connectionTimeout: 3000 });
    return new Keyv({ store, namespace: 'turnbridge:access', useKeyPrefix: false });
  }
  const dir = join(config.dataDir, 'access');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return new Keyv({ store: new KeyvFile({ filename: dir, separatedFile: true, writeDelay: 0 }), namespace: 'access' });
}

export function createAccessGrants(config: Pick<BridgeConfig, 'redisUrl' | 'dataDir'>, logger: Logger, opts: { keyv?: Keyv; now?: () => number } = {}): AccessGrants {
  const log = logger.child({ component: 'access-grants' });
  const now = opts.now ?? Date.now;
  // Opened on first use: a bridge whose data dir cannot be made still starts (and logs why grants fail).
  let opened: Keyv | undefined = opts.keyv;
  const store = (): Keyv => {
    if (!opened) {
      opened = buildKeyv(config);
      opened.on('error', (err: unknown) => log.error({ err }, 'access grant store error'));
    }
    return opened;
  };
  const guarded = async <T>(op: string, fn: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      log.error({ err, op }, 'access grant store failed; treating the person as not granted');
      return fallback;
    }
  };
  return {
    hasAny: (ids) => guarded('get', async () => {
      for (const id of ids) {
        const g = await store().get<AccessGrant>(id);
        if (g && typeof g === 'object') return true;
      }
      return false;
    }, false),
    add: (id, by) => guarded('set', () => store().set(id, { by, at: now() } satisfies AccessGrant), false),
    remove: (id) => guarded('delete', () => store().delete(id), false),
    pairingCode: (id) => guarded('pair', async () => {
      const code = Array.from({ length: 6 }, () => CODE_CHARS[randomInt(CODE_CHARS.length)]).join('');
      return (await store().set(`pair:${code}`, { identity: id }, PAIRING_TTL_MS)) ? code : undefined;
    }, undefined),
    redeem: (code) => guarded('redeem', async () => {
      const key = `pair:${code.toUpperCase()}`;
      const entry = await store().get<{ identity?: string }>(key);
      if (!entry || typeof entry.identity !== 'string') return undefined;
      await store().delete(key);
      return entry.identity;
    }, undefined),
    close: () => guarded('close', async () => { if (opened) await opened.disconnect(); }, undefined),
  };
}
