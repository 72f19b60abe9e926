/**
 * A profile's `sandbox:` block: which operator files the box shows and which hosts its proxy
 * admits. The host's own loopback is never matched by a pattern (`*` included), only by an
 * entry naming it with its port.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { hostAllowed, loopbackForwards, parseHostRule, type HostRule } from '../../../src/profile/allow-hosts.js';
import { parseProfileText } from '../../../src/profile/index.js';
import { isTurnbridgeError } from '../../../src/errors.js';

const rules = (...entries: string[]): HostRule[] => entries.map((e) => parseHostRule(e)!);

describe('profile sandbox fields', () => {
  it('parses read and allow_hosts', () => {
    const { profile } = parseProfileText('command: x\nsandbox:\n  read: [~/.claude/.credentials.json, /etc/ssl/private.pem]\n  allow_hosts: [api.anthropic.com, "*.googleapis.com", "127.0.0.1:8080", "[::1]:9"]\n', '/p/profile.yaml');
    assert.deepEqual(profile.sandbox, { read: ['~/.claude/.credentials.json', '/etc/ssl/private.pem'], allowHosts: [{ host: 'api.anthropic.com' }, { host: '*.googleapis.com' }, { host: '127.0.0.1', port: 8080 }, { host: '::1', port: 9 }] });
  });

  it('fills {{PROFILE_DIR}} in a read entry with the profile\'s directory; a profile without a file has none', () => {
    const yaml = 'command: x\nsandbox: { read: ["{{PROFILE_DIR}}/../shared/plot.mjs"] }\n';
    assert.deepEqual(parseProfileText(yaml, '/p/demo/profile.yaml').profile.sandbox?.read, ['/p/shared/plot.mjs']);
    assert.throws(() => parseProfileText(yaml), (e: unknown) => isTurnbridgeError(e) && e.field === 'sandbox.read[0]');
  });

  it('names the file and field of a bad entry', () => {
    for (const [yaml, field] of [
      ['sandbox: { read: [relative/path] }', 'sandbox.read[0]'],
      ['sandbox: { allow_hosts: ["http://x.com"] }', 'sandbox.allow_hosts[0]'],
      ['sandbox: { allow_hosts: ["a.*.com"] }', 'sandbox.allow_hosts[0]'],
      ['sandbox: { allow: [x] }', 'sandbox.allow'],
      ['sandbox: [x]', 'sandbox'],
    ] as const) {
      assert.throws(() => parseProfileText(`command: x\n${yaml}\n`, '/p/profile.yaml'), (e: unknown) => isTurnbridgeError(e) && e.field === field && e.message.startsWith('/p/profile.yaml'), yaml);
    }
  });

  it('matches hosts, subdomains and ports', () => {
    const r = rules('api.anthropic.com', '*.googleapis.com', 'gateway.internal:4000');
    assert.ok(hostAllowed(r, 'api.anthropic.com', 443));
    assert.ok(hostAllowed(r, 'API.Anthropic.com.', 443));
    assert.ok(!hostAllowed(r, 'evil-api.anthropic.com', 443));
    assert.ok(hostAllowed(r, 'generativelanguage.googleapis.com', 443));
    assert.ok(!hostAllowed(r, 'googleapis.com', 443), '*.domain is subdomains only');
    assert.ok(!hostAllowed(r, 'googleapis.com.evil.com', 443));
    assert.ok(hostAllowed(r, 'gateway.internal', 4000));
    assert.ok(!hostAllowed(r, 'gateway.internal', 4001));
    assert.ok(!hostAllowed([], 'api.anthropic.com', 443), 'no list: no network');
  });

  it('loopback only by exact host and port, never by * or a pattern', () => {
    const r = rules('*', '127.0.0.1:8080');
    assert.ok(hostAllowed(r, 'example.com', 443));
    assert.ok(hostAllowed(r, '127.0.0.1', 8080));
    for (const [h, p] of [['127.0.0.1', 6379], ['localhost', 8080], ['127.0.0.2', 8080], ['::1', 8080], ['[::ffff:127.0.0.1]', 8080], ['0.0.0.0', 8080], ['x.localhost', 80]] as const) {
      assert.ok(!hostAllowed(r, h, p), `${h}:${p}`);
    }
    assert.ok(!hostAllowed(rules('127.0.0.1'), '127.0.0.1', 6379), 'a loopback entry needs its port');
    assert.deepEqual(loopbackForwards(r), [{ host: '127.0.0.1', port: 8080 }]);
  });
});
