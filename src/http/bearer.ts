/**
 * Bearer tokens on requests, shared by every route that asks for one (the local page,
 * /metrics): reading `Authorization: Bearer <token>` and comparing it with the configured secret.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/**
 * Constant-time equality of a presented secret and the configured one. Both are hashed first, so
 * neither the content nor the length of the configured secret shows in the time taken.
 */
export function sameSecret(presented: string, secret: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}
