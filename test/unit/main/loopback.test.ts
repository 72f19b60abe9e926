/**
 * One answer to "is this address this machine?" for the HTTP server (Host header, bind address)
 * and the agent box's egress filter: every spelling of loopback, and 0.0.0.0 / `::` apart (every
 * interface when bound, this machine when connected to).
 */
import { strict as assert } from 'node:assert';
import { it } from 'node:test';
import { isLoopbackHost, isUnspecifiedHost, reachesThisMachine } from '../../../src/loopback.js';
import { isLoopbackBind } from '../../../src/http/index.js';
import { hostAllowed, parseHostRule } from '../../../src/profile/allow-hosts.js';

const LOOPBACK = ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '[::ffff:7f00:1]', '0:0:0:0:0:ffff:7f00:2', 'localhost', 'LOCALHOST.', 'api.localhost'];
const UNSPECIFIED = ['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0', '::ffff:0.0.0.0'];
const ELSEWHERE = ['10.0.0.5', '::ffff:10.0.0.5', '2001:db8::1', 'example.com', 'localhost.example.com', '128.0.0.1'];

it('loopback, unspecified and elsewhere, in every spelling', () => {
  for (const h of LOOPBACK) assert.deepEqual([isLoopbackHost(h), isUnspecifiedHost(h), reachesThisMachine(h)], [true, false, true], h);
  for (const h of UNSPECIFIED) assert.deepEqual([isLoopbackHost(h), isUnspecifiedHost(h), reachesThisMachine(h)], [false, true, true], h);
  for (const h of ELSEWHERE) assert.deepEqual([isLoopbackHost(h), isUnspecifiedHost(h), reachesThisMachine(h)], [false, false, false], h);
});

it('a bind on 0.0.0.0 or :: is not loopback-only; a connection to them is refused under * like any loopback spelling', () => {
  const all = [parseHostRule('*')!];
  for (const h of UNSPECIFIED) assert.equal(isLoopbackBind(h), false, h);
  for (const h of LOOPBACK) assert.equal(isLoopbackBind(h), true, h);
  for (const h of [...LOOPBACK, ...UNSPECIFIED]) assert.equal(hostAllowed(all, h, 6379), false, `${h} under *`);
  for (const h of ['10.0.0.5', 'example.com']) assert.equal(hostAllowed(all, h, 443), true, h);
});
