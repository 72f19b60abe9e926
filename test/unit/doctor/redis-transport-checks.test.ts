/** Doctor's Redis transport lines: no password, and plain redis:// off loopback, are warned with the fix. */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { redisTransportChecks } from '../../../src/doctor/redis-transport-checks.js';

const lines = (url: string) => redisTransportChecks(url, '[shown]').map((c) => `${c.status}: ${c.text}${c.fix ? ` | ${c.fix}` : ''}`);

describe('doctor: how REDIS_URL reaches Redis', () => {
  it('no password: a warning that says how to add one (requirepass or an ACL user)', () => {
    const [first, ...rest] = lines('redis://127.0.0.1:6379');
    assert.match(first!, /^warn: Redis at \[shown\]: REDIS_URL has no password/);
    assert.match(first!, /ACL SETUSER .* redis:\/\/turnbridge:password@host:6379/);
    assert.deepEqual(rest, [], 'loopback without TLS is fine');
  });

  it('off loopback over redis://: a warning to use rediss://; with rediss:// and an ACL user, two passes', () => {
    const plain = lines('redis://:pw@redis.internal:6379');
    assert.match(plain[0]!, /^pass: .* logs in with a password/);
    assert.match(plain[1]!, /^warn: Redis at \[shown\] is reached over the network without TLS.*\| use rediss:\/\//);
    assert.match(lines('redis://10.0.0.5:6379')[1]!, /^warn: .*without TLS/, 'an IP off loopback too');
    assert.deepEqual(lines('rediss://tb:pw@redis.internal:6380'), [
      'pass: Redis at [shown]: REDIS_URL logs in as ACL user tb',
      'pass: Redis at [shown] is reached over TLS (rediss://)',
    ]);
    assert.equal(lines('redis://:pw@localhost:6379').length, 1, 'localhost is loopback');
    assert.equal(lines('redis://:pw@[::1]:6379').length, 1, '::1 is loopback');
  });
});
