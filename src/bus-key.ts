/**
 * The key every replica of one bridge shares (TURNBRIDGE_BUS_KEY or TURNBRIDGE_BUS_KEY_FILE),
 * required with REDIS_URL: whoever can reach Redis can publish and write there, so what replicas
 * tell each other (replicas/bus-wire.ts) and the records they keep there (state/sealed-store.ts)
 * carry an HMAC-SHA256 under it, and what fails the check is dropped. docs/security.md says what
 * it protects and what it does not.
 *
 * Each use has its own key, derived with HKDF (a bus MAC is never a valid record MAC). Parts are
 * length-prefixed before they are MACed, so ("ab", "c") and ("a", "bc") never share a MAC.
 * What a good key is, and the errors for a bad or missing one, are in bus-key-check.ts (no crypto:
 * the configuration checks them in every command).
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export type KeyPurpose = 'bus' | 'state';

export interface BusKey {
  /** Hex HMAC-SHA256 of `parts` under the current key's `purpose` key. */
  mac(purpose: KeyPurpose, parts: readonly string[]): string;
  /** True when `mac` is the MAC of `parts` under the current key, or under the previous one (a rotation). */
  verify(purpose: KeyPurpose, parts: readonly string[], mac: string): boolean;
}

function derive(secret: string, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'turnbridge', `turnbridge ${purpose} mac v1`, 32));
}

function macWith(key: Buffer, parts: readonly string[]): Buffer {
  const h = createHmac('sha256', key);
  for (const p of parts) {
    h.update(`${Buffer.byteLength(p, 'utf8')}:`);
    h.update(p, 'utf8');
  }
  return h.digest();
}

/**
 * The key from its secret; `previous` (TURNBRIDGE_BUS_KEY_PREVIOUS) is accepted when verifying
 * and never used to sign, so replicas can move to a new key one at a time (docs/operations.md).
 */
export function createBusKey(secret: string, previous?: string): BusKey {
  const secrets = [secret, ...(previous ? [previous] : [])];
  const keys = { bus: secrets.map((s) => derive(s, 'bus')), state: secrets.map((s) => derive(s, 'state')) };
  return {
    mac: (purpose, parts) => macWith(keys[purpose][0]!, parts).toString('hex'),
    verify(purpose, parts, mac) {
      if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
      const given = Buffer.from(mac, 'hex');
      return keys[purpose].some((k) => timingSafeEqual(macWith(k, parts), given));
    },
  };
}
