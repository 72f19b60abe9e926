/**
 * The world of the spy agent (test/fixtures/agents/box-spy.mjs, issue 21): a deploy directory
 * with a .env and a state file, an operator HOME holding a key and a declared credential, Redis
 * and another service on loopback, a UDP (DNS) responder, a host unix socket, and the spy's
 * profile. Shared by the spy's runs through `turnbridge run` (spy-run.test.ts) and through the
 * bridge's local page (spy-local.test.ts).
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startRedisServer, type RedisServer } from '../../fakes/redis-server.js';
import { probeBox } from '../../../src/runner/sandbox/probe.js';

/** Another conversation's places the spy tries (peer_read: files and directories; peer_write: directories). */
export interface PeerPlaces {
  read: string[];
  write: string[];
}

export const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/turnbridge.js');
const SPY = join(ROOT, 'test/fixtures/agents/box-spy.mjs');
const SPY_USER = 'tbspy';

/** The box's seccomp stage is in force here (runner/sandbox/seccomp.ts): a host socket in a directory the box shows is refused too. */
export const SECCOMP = ((p) => !('problem' in p) && p.stage !== undefined)(probeBox());

/** Every probe of the report that must fail in the box (and succeed unsandboxed). */
export const ATTACKS = ['env_file', 'state_file', 'operator_home', 'operator_home_write', 'bridge_environ', 'write_etc', 'capabilities', 'mount', 'umount', 'remount_root_rw',
  'redis', 'loopback_service', 'dns', 'host_socket', ...(SECCOMP ? ['shown_socket'] as const : []), 'http_not_allowed'] as const;
/** Attacks that only root can make even unsandboxed. */
export const ROOT_ONLY = new Set(['write_etc', 'capabilities', 'mount', 'remount_root_rw']);
/** Only a box has something to unmount (the mounts that hide the bridge's files). */
export const BOX_ONLY = new Set(['umount']);

export interface Report { uid: number; probes: Record<string, { reached: boolean; detail: string }> }

/** A plain user for the non-root run: made once here when the machine has none (CI runs as root). */
export function plainUser(): { uid: number; gid: number } | string {
  if (process.getuid?.() !== 0) return { uid: process.getuid!(), gid: process.getgid!() };
  let id = spawnSync('id', ['-u', SPY_USER], { encoding: 'utf8' });
  if (id.status !== 0) {
    const made = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', SPY_USER], { encoding: 'utf8' });
    if (made.status !== 0) return `useradd ${SPY_USER} failed: ${made.stderr.trim()}`;
    id = spawnSync('id', ['-u', SPY_USER], { encoding: 'utf8' });
  }
  const gid = spawnSync('id', ['-g', SPY_USER], { encoding: 'utf8' });
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export class World {
  readonly root = mkdtempSync(join(tmpdir(), 'tb-spy-'));
  readonly home = join(this.root, 'home');
  readonly deploy = join(this.root, 'deploy');
  readonly ws = join(this.root, 'ws');
  readonly marker = `spy-survivor-${process.pid}-${Date.now()}`;
  redis!: RedisServer;
  private http!: Server;
  private allowed!: Server;
  private udp = createSocket('udp4');
  private unix!: NetServer;
  /** A host process's socket in a directory the box shows (read-only): only the seccomp filter keeps the agent from it. */
  readonly shownDir = mkdtempSync(join('/var/tmp', 'tb-spy-sock-'));
  private shown!: NetServer;
  servicePort = 0;
  allowedPort = 0;
  udpPort = 0;

  /**
   * `bridge`: the world of `turnbridge start` (bridge.ts beside this file): the agent works in its
   * conversation's workspace (no profile cwd), the state file is the bridge's own (not planted),
   * .env holds a secret the bridge can load, and the spy also probes the places of `peers`.
   */
  constructor(readonly owner: { uid: number; gid: number }, readonly opts: { bridge?: { port: number; peer: (world: World) => PeerPlaces } } = {}) {}

  async start(): Promise<this> {
    for (const d of [join(this.home, '.ssh'), join(this.home, '.claude'), join(this.deploy, 'data'), join(this.ws, 'mnt'), join(this.root, 'profile'), join(this.root, 'tmp')]) mkdirSync(d, { recursive: true });
    writeFileSync(join(this.home, '.ssh', 'id_ed25519'), 'OPERATOR-PRIVATE-KEY\n', { mode: 0o600 });
    writeFileSync(join(this.home, '.claude', '.credentials.json'), '{"declared":"credential"}\n', { mode: 0o600 });
    const bridge = this.opts.bridge;
    // A secret of the deploy's own (turnbridge run now reads the directory's configuration, .env
    // included, so a lone Slack bot token there would be refused before the spy runs).
    writeFileSync(join(this.deploy, '.env'), bridge ? 'SPY_ENV_SECRET=spy-me-from-env\n' : 'SPY_ENV_SECRET=xoxb-spy-me\n', { mode: 0o600 });
    if (!bridge) writeFileSync(join(this.deploy, 'data', 'turnbridge.sqlite'), 'grants, rules, queued message text\n', { mode: 0o600 });
    this.redis = await startRedisServer();
    this.http = await listen(createHttpServer((_q, s) => s.end('another local service\n')));
    this.allowed = await listen(createHttpServer((_q, s) => s.end('the allowed host\n')));
    this.servicePort = port(this.http);
    this.allowedPort = port(this.allowed);
    this.udp.on('message', (m, from) => this.udp.send(m, from.port, from.address));
    await new Promise<void>((r) => this.udp.bind(0, '127.0.0.1', r));
    this.udpPort = this.udp.address().port;
    this.unix = createNetServer((s) => s.end('a host process answering on its unix socket\n'));
    await new Promise<void>((r) => this.unix.listen(join(this.root, 'host.sock'), r));
    this.shown = createNetServer((s) => s.end('a host process answering on its socket in /var/tmp\n'));
    await new Promise<void>((r) => this.shown.listen(join(this.shownDir, 'shown.sock'), r));
    chmodSync(this.shownDir, 0o755);
    chmodSync(join(this.shownDir, 'shown.sock'), 0o777);
    const config = {
      env_file: join(this.deploy, '.env'), state_file: join(this.deploy, 'data', 'turnbridge.sqlite'),
      home_file: join(this.home, '.ssh', 'id_ed25519'), declared_file: '~/.claude/.credentials.json',
      bridge_pid: 'parent', bridge_marker: `SPY_BRIDGE_SECRET=${this.marker}`, hidden_dir: join(this.deploy, 'data'), mount_dir: join(this.ws, 'mnt'),
      redis_port: this.redis.port, service_port: this.servicePort, udp_port: this.udpPort, socket_path: join(this.root, 'host.sock'), shown_socket_path: join(this.shownDir, 'shown.sock'),
      not_allowed_url: `http://localhost:${this.servicePort}/`, allowed_url: `http://127.0.0.1:${this.allowedPort}/`, survivor_marker: this.marker,
      ...(bridge ? { bridge_port: bridge.port, own_mark: true, peer_read: bridge.peer(this).read, peer_write: bridge.peer(this).write } : {}),
    };
    writeFileSync(join(this.root, 'profile', 'profile.yaml'), [
      'command: node', `args: [${JSON.stringify(SPY)}]`, ...(bridge ? [] : [`cwd: ${JSON.stringify(this.ws)}`]), 'timeout_secs: 60',
      `env: { SPY_CONFIG: ${JSON.stringify(JSON.stringify(config))} }`,
      `sandbox: { read: ["~/.claude/.credentials.json"], allow_hosts: ["127.0.0.1:${this.allowedPort}"] }`, '',
    ].join('\n'));
    chownTree(this.root, this.owner);
    return this;
  }

  /** `turnbridge run` from the deploy directory, as the owner, with `env` over a clean environment. */
  async run(env: Record<string, string>): Promise<Report> {
    const child = spawn(process.execPath, [BIN, 'run', join(this.root, 'profile', 'profile.yaml'), '--message', 'spy', '--json'], {
      cwd: this.deploy, uid: this.owner.uid, gid: this.owner.gid,
      // TMPDIR: the CLI's own (tsx caches there), as /tmp may not be writable by everyone.
      env: { PATH: process.env.PATH, HOME: this.home, TMPDIR: join(this.root, 'tmp'), SPY_BRIDGE_SECRET: this.marker, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const code = await new Promise<number | null>((r) => child.on('close', r));
    assert.equal(code, 0, `turnbridge run failed (${code}): ${err}\n${out}`);
    const result = JSON.parse(out) as { text?: string; reply?: string };
    return JSON.parse(result.text ?? result.reply ?? '') as Report;
  }

  /** Processes still running with the survivor's marker in their argv. */
  survivors(): number[] {
    const out: number[] = [];
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try { if (readFileSync(`/proc/${d}/cmdline`, 'latin1').includes(this.marker)) out.push(Number(d)); } catch { /* gone */ }
    }
    return out;
  }

  async close(): Promise<void> {
    for (const pid of this.survivors()) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    this.redis?.stop();
    this.udp.close();
    await Promise.all([this.http, this.allowed, this.unix, this.shown].map((s) => new Promise((r) => s ? s.close(r) : r(undefined))));
    rmSync(this.root, { recursive: true, force: true });
    rmSync(this.shownDir, { recursive: true, force: true });
  }
}

export function listen(s: Server): Promise<Server> {
  return new Promise((r) => s.listen(0, '127.0.0.1', () => r(s)));
}
export const port = (s: Server): number => (s.address() as { port: number }).port;

export function chownTree(p: string, o: { uid: number; gid: number }): void {
  chownSync(p, o.uid, o.gid);
  for (const e of readdirSync(p, { withFileTypes: true })) {
    if (e.isDirectory()) chownTree(join(p, e.name), o);
    else chownSync(join(p, e.name), o.uid, o.gid);
  }
}

