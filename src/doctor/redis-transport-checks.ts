/**
 * Store: how the bridge reaches Redis, read from REDIS_URL alone. The bus key keeps a client of
 * Redis from forging clicks and records (docs/security.md, section 7), but not from reading them
 * or deleting them: a Redis without a password lets anyone who reaches it do that, and `redis://`
 * off loopback sends the password, the records and the bus in clear.
 */
import { isLoopbackBind } from '../http/host-check.js';
import { pass, warn, type CheckResult } from '../check-result.js';

const S = 'Store';

export function redisTransportChecks(url: string, shown: string): CheckResult[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return []; // the reachability check says what is wrong with it
  }
  const checks: CheckResult[] = [];
  const tls = u.protocol === 'rediss:';
  if (!u.password) {
    checks.push(warn(S, `Redis at ${shown}: REDIS_URL has no password, so any process that can reach that Redis can read the bridge's state and delete it`,
      'give Redis a password (requirepass) or an ACL user (ACL SETUSER turnbridge on >password ~* &* +@all; and turn the default user off) and put it in the URL: redis://turnbridge:password@host:6379, best through REDIS_URL_FILE'));
  } else {
    checks.push(pass(S, `Redis at ${shown}: REDIS_URL logs in${u.username ? ` as ACL user ${decodeURIComponent(u.username)}` : ' with a password'}`));
  }
  if (!tls && !isLoopbackBind(u.hostname)) {
    checks.push(warn(S, `Redis at ${shown} is reached over the network without TLS: its password, the state and the replicas' messages cross it in clear`,
      'use rediss:// (Redis 6+ with tls-port, or a TLS proxy in front of it; a private CA: NODE_EXTRA_CA_CERTS=/path/ca.pem)'));
  } else if (tls) {
    checks.push(pass(S, `Redis at ${shown} is reached over TLS (rediss://)`));
  }
  return checks;
}
