/**
 * A real redis-server on a free loopback port, for the tests of everything shared through Redis
 * (Debian's redis-server; .ci/run installs it when missing). It can require an ACL user, or TLS
 * with a certificate openssl makes for the test (Debian's redis-server is built with TLS).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/log.js';
import { connectRedis, type RedisConnections } from '../../src/redis/index.js';
import { createRedisStore, type RejectedRecord, type StateStore } from '../../src/state/index.js';
import { testBusKey } from '../fixtures/bus-key.js';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Ends the server (SIGKILL: what a crashed Redis looks like to its clients). */
  stop(): void;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** How the server lets clients in (default: anyone, no TLS). */
export interface RedisServerOptions {
  /** Only this ACL user (the `default` user is turned off): `redis://user:password@…`. */
  acl?: { user: string; password: string };
  /** TLS only (no plain port), with this certificate: `rediss://…`. */
  tls?: TestCerts;
}

/** A CA and a server certificate for 127.0.0.1 / localhost, made with openssl in a temp directory. */
export interface TestCerts {
  dir: string;
  ca: string;
  cert: string;
  key: string;
}

export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'tb-tls-'));
  const at = (f: string) => join(dir, f);
  const run = (args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.error?.message ?? r.stderr}`);
  };
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=turnbridge test CA']);
  run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(at('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf']);
  return { dir, ca: at('ca.pem'), cert: at('server.pem'), key: at('server.key') };
}

/** Starts redis-server on `port` (default: a free one) and resolves once it accepts connections. */
export async function startRedisServer(port?: number, opts: RedisServerOptions = {}): Promise<RedisServer> {
  if (spawnSync('redis-server', ['--version']).error) {
    throw new Error('redis-server is not installed: apt-get install -y redis-server (.ci/run does this)');
  }
  const p = port ?? (await freePort());
  const args = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  if (opts.tls) {
    args.push('--port', '0', '--tls-port', String(p), '--tls-cert-file', opts.tls.cert, '--tls-key-file', opts.tls.key, '--tls-ca-cert-file', opts.tls.ca, '--tls-auth-clients', 'no');
  } else args.push('--port', String(p));
  if (opts.acl) args.push('--user', 'default', 'off', '--user', opts.acl.user, 'on', `>${opts.acl.password}`, '~*', '&*', '+@all');
  const server: ChildProcess = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    server.on('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`)));
  });
  const auth = opts.acl ? `${encodeURIComponent(opts.acl.user)}:${encodeURIComponent(opts.acl.password)}@` : '';
  return { url: `${opts.tls ? 'rediss' : 'redis'}://${auth}127.0.0.1:${p}`, port: p, stop: () => void server.kill('SIGKILL') };
}

/** A Redis state store on connections of its own (as another replica's would be), closed with it. */
export function redisStateStore(url: string, prefix?: string, onRejected?: (r: RejectedRecord) => void): StateStore {
  const redis = connectRedis(url, { logger: silentLogger });
  const store = createRedisStore({ redis, key: testBusKey(), ...(prefix ? { prefix } : {}), ...(onRejected ? { onRejected } : {}) });
  return { ...store, close: async () => { await store.close(); await redis.close(); } };
}

const connected = new Set<RedisConnections>();

/** Connections of their own to `url`, as one replica's; closed by closeConnections() in the test's after(). */
export function connectionsTo(url: string): RedisConnections {
  const redis = connectRedis(url, { logger: silentLogger });
  connected.add(redis);
  return redis;
}

export async function closeConnections(): Promise<void> {
  await Promise.all([...connected].map((r) => r.close()));
  connected.clear();
}
