/**
 * Issue 21, from the attacker's side: a spy agent (test/fixtures/agents/box-spy.mjs) run through
 * `turnbridge run` (the real CLI process) from a deploy directory with a .env and a state file,
 * an operator HOME holding a key, Redis and another service on loopback, a UDP (DNS) responder,
 * a host unix socket. With the DEFAULT configuration (TURNBRIDGE_SANDBOX unset: auto) every probe
 * fails, while the profile's one allowed host is reached through the box's proxy; with
 * TURNBRIDGE_SANDBOX=off the same probes succeed, so they are real. As root and as a plain user.
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startRedisServer, type RedisServer } from '../../fakes/redis-server.js';
import { sandboxProblem } from '../../../src/runner/index.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/turnbridge.js');
const SPY = join(ROOT, 'test/fixtures/agents/box-spy.mjs');
const SPY_USER = 'tbspy';

/** Every probe of the report that must fail in the box (and succeed unsandboxed). */
const ATTACKS = ['env_file', 'state_file', 'operator_home', 'operator_home_write', 'bridge_environ', 'write_etc', 'capabilities', 'mount', 'umount', 'remount_root_rw',
  'redis', 'loopback_service', 'dns', 'host_socket', 'http_not_allowed'] as const;
/** Attacks that only root can make even unsandboxed. */
const ROOT_ONLY = new Set(['write_etc', 'capabilities', 'mount', 'remount_root_rw']);
/** Only a box has something to unmount (the mounts that hide the bridge's files). */
const BOX_ONLY = new Set(['umount']);

interface Report { uid: number; probes: Record<string, { reached: boolean; detail: string }> }

/** A plain user for the non-root run: made once here when the machine has none (CI runs as root). */
function plainUser(): { uid: number; gid: number } | string {
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

class World {
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
  servicePort = 0;
  allowedPort = 0;
  udpPort = 0;

  constructor(readonly owner: { uid: number; gid: number }) {}

  async start(): Promise<this> {
    for (const d of [join(this.home, '.ssh'), join(this.home, '.claude'), join(this.deploy, 'data'), join(this.ws, 'mnt'), join(this.root, 'profile'), join(this.root, 'tmp')]) mkdirSync(d, { recursive: true });
    writeFileSync(join(this.home, '.ssh', 'id_ed25519'), 'OPERATOR-PRIVATE-KEY\n', { mode: 0o600 });
    writeFileSync(join(this.home, '.claude', '.credentials.json'), '{"declared":"credential"}\n', { mode: 0o600 });
    writeFileSync(join(this.deploy, '.env'), 'SLACK_BOT_TOKEN=xoxb-spy-me\n', { mode: 0o600 });
    writeFileSync(join(this.deploy, 'data', 'turnbridge.sqlite'), 'grants, rules, queued message text\n', { mode: 0o600 });
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
    const config = {
      env_file: join(this.deploy, '.env'), state_file: join(this.deploy, 'data', 'turnbridge.sqlite'),
      home_file: join(this.home, '.ssh', 'id_ed25519'), declared_file: '~/.claude/.credentials.json',
      bridge_pid: 'parent', bridge_marker: `SPY_BRIDGE_SECRET=${this.marker}`, hidden_dir: join(this.deploy, 'data'), mount_dir: join(this.ws, 'mnt'),
      redis_port: this.redis.port, service_port: this.servicePort, udp_port: this.udpPort, socket_path: join(this.root, 'host.sock'),
      not_allowed_url: `http://localhost:${this.servicePort}/`, allowed_url: `http://127.0.0.1:${this.allowedPort}/`, survivor_marker: this.marker,
    };
    writeFileSync(join(this.root, 'profile', 'profile.yaml'), [
      'command: node', `args: [${JSON.stringify(SPY)}]`, `cwd: ${JSON.stringify(this.ws)}`, 'timeout_secs: 60',
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
    await Promise.all([this.http, this.allowed, this.unix].map((s) => new Promise((r) => s ? s.close(r) : r(undefined))));
    rmSync(this.root, { recursive: true, force: true });
  }
}

function listen(s: Server): Promise<Server> {
  return new Promise((r) => s.listen(0, '127.0.0.1', () => r(s)));
}
const port = (s: Server): number => (s.address() as { port: number }).port;

function chownTree(p: string, o: { uid: number; gid: number }): void {
  chownSync(p, o.uid, o.gid);
  for (const e of readdirSync(p, { withFileTypes: true })) {
    if (e.isDirectory()) chownTree(join(p, e.name), o);
    else chownSync(join(p, e.name), o.uid, o.gid);
  }
}

const boxMissing = sandboxProblem();
const asRoot = process.getuid?.() === 0 ? false : 'the root run needs the test to run as root';
const user = plainUser();

for (const [who, skip, owner] of [
  ['root', asRoot || boxMissing || false, { uid: 0, gid: 0 }],
  ['a plain user', typeof user === 'string' ? user : boxMissing || false, typeof user === 'string' ? { uid: 0, gid: 0 } : user],
] as const) {
  describe(`the spy through turnbridge run, as ${who}`, { skip }, () => {
    let world: World;
    before(async () => { world = await new World(owner).start(); });
    after(() => world?.close());

    it('default configuration (auto): every probe fails; the declared file and the allowed host are reached; nothing outlives the turn', async () => {
      const report = await world.run({});
      assert.equal(report.uid, owner.uid, 'the agent runs as the CLI user');
      for (const name of ATTACKS) {
        assert.ok(report.probes[name], `probe ${name} ran: ${JSON.stringify(report.probes)}`);
        assert.equal(report.probes[name]!.reached, false, `${name} must fail in the box: ${JSON.stringify(report.probes[name])}`);
      }
      assert.match(report.probes.capabilities!.detail, /^CapEff 0+$/);
      assert.match(report.probes.http_not_allowed!.detail, /^403 /, 'the box\'s proxy refused the host not allowed');
      assert.deepEqual(report.probes.declared_read, { reached: true, detail: '{"declared":"credential"}\n' });
      assert.deepEqual(report.probes.http_allowed, { reached: true, detail: '200 the allowed host\n' });
      assert.equal(report.probes.survivor_started!.reached, true);
      assert.deepEqual(world.survivors(), [], 'the setsid child died with the turn');
      assert.equal(readFileSync(join(world.home, '.ssh', 'id_ed25519'), 'utf8'), 'OPERATOR-PRIVATE-KEY\n');
    });

    it('TURNBRIDGE_SANDBOX=off: the same probes succeed (they are real)', async () => {
      const report = await world.run({ TURNBRIDGE_SANDBOX: 'off' });
      for (const name of ATTACKS) {
        if (BOX_ONLY.has(name) || (ROOT_ONLY.has(name) && owner.uid !== 0)) continue;
        assert.equal(report.probes[name]?.reached, true, `${name} works unsandboxed: ${JSON.stringify(report.probes[name])}`);
      }
      assert.ok(world.survivors().length > 0, 'unsandboxed, the setsid child outlived the turn');
    });
  });
}
