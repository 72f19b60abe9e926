/**
 * Issue 21 through the bridge: the spy agent (test/fixtures/agents/box-spy.mjs) behind
 * `turnbridge start` (the real CLI process, its local page, real agent processes), run from a
 * deploy directory with a .env and its real state file, an operator HOME holding a key, Redis and
 * another service on loopback (test/e2e/sandbox/spy-world.ts). Two conversations (two pages):
 * A's turn leaves files in its workspace and HOME, then B's spy tries A's places, the bridge's
 * data dir and state file, and every row of the table.
 *
 * Under the DEFAULT configuration (TURNBRIDGE_SANDBOX unset: auto, the box) every probe fails,
 * as root and with TURNBRIDGE_RUN_AS (a non-root agent user); with TURNBRIDGE_SANDBOX=off the
 * same probes succeed, so they are real. With run_as and no box, the bridge's own files stay
 * closed (0600 / 0710): the state file and the data dir are still refused.
 */
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { conversationDirName } from '../../../src/bridge/turns/conversation-dirs.js';
import { conversationKey } from '../../../src/state/index.js';
import { conversationOf } from '../../../src/platforms/local/local-routes.js';
import { sandboxProblem } from '../../../src/runner/index.js';
import { pollUntil } from '../poll-until.js';
import { pageSnapshot } from './page-snapshot.js';
import { ATTACKS, BOX_ONLY, ROOT, ROOT_ONLY, World, plainUser, type PeerPlaces, type Report } from '../sandbox/spy-world.js';

const BIN = join(ROOT, 'bin/turnbridge.js');

/** A's places, as B's spy is told to try them (the same derivation as the bridge's). */
function peerOf(world: { home: string; deploy: string }, page: string): PeerPlaces & { names: string[] } {
  const name = conversationDirName(conversationKey('local', conversationOf(page)));
  const wsRoot = join(world.home, '.turnbridge', 'workspace');
  const homes = join(world.deploy, 'data', 'homes');
  const ws = join(wsRoot, name);
  const home = join(homes, name);
  return {
    read: [join(ws, 'mark'), join(home, 'mark'), ws, home, join(world.deploy, 'data'), wsRoot, homes],
    names: ['A workspace file', 'A HOME file', 'A workspace', 'A HOME', 'data dir', 'workspace root', 'HOMEs root'],
    write: [ws, home],
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Bridge {
  child: ChildProcess;
  url: string;
  out(): string;
  stop(): Promise<void>;
}

/** `turnbridge start` from the deploy directory, serving the local page on `port`. */
async function startBridge(world: World, port: number, env: Record<string, string>): Promise<Bridge> {
  const child = spawn(process.execPath, [BIN, 'start'], {
    cwd: world.deploy,
    env: {
      PATH: process.env.PATH, HOME: world.home, TMPDIR: join(world.root, 'tmp'), SPY_BRIDGE_SECRET: world.marker,
      HOST: '127.0.0.1', PORT: String(port), TURNBRIDGE_PROFILE: join(world.root, 'profile', 'profile.yaml'), TURNBRIDGE_CONFIG: join(world.deploy, 'turnbridge.yaml'), LOG_LEVEL: 'warn', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const url = (await pollUntil(() => (child.exitCode === null ? /local chat at (http:\/\/\S+\/)/.exec(out)?.[1] : 'exited'), 'the bridge to serve its page', 60_000, () => out))!;
  assert.notEqual(url, 'exited', out);
  return {
    child, url, out: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Type `text` in `page` and wait for its turn to end (✅ or ❌ on the message): the spy's report. */
async function ask(bridge: Bridge, page: string, text: string): Promise<Report> {
  const id = `m${Math.random().toString(36).slice(2, 10)}`;
  const sent = await fetch(`${bridge.url}local/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page, text, id }) });
  assert.equal(sent.status, 202);
  const items = await pollUntil(async () => {
    const now = await pageSnapshot(bridge.url, page);
    const mine = now.find((i) => i.id === `u-${id}`);
    return mine?.state === 'success' || mine?.state === 'failure' ? now : undefined;
  }, `the turn of ${page} to end`, 60_000, bridge.out);
  const reply = items.filter((i) => i.kind === 'bot').at(-1)?.content?.text ?? '';
  const json = reply.split('\n').find((l) => l.startsWith('{"uid"'));
  assert.ok(json, `a spy report in the reply: ${reply}\n${bridge.out()}`);
  return JSON.parse(json) as Report;
}

const boxMissing = sandboxProblem();
const asRoot = process.getuid?.() === 0 ? false : 'the bridge runs as root here (run_as needs it)';
const user = plainUser();

for (const [who, runAs, skip] of [
  ['root', undefined, asRoot || boxMissing || false],
  ['root with TURNBRIDGE_RUN_AS (a non-root agent user)', typeof user === 'string' ? undefined : user, asRoot || (typeof user === 'string' ? user : false) || boxMissing || false],
] as const) {
  describe(`the spy behind the local page, two conversations, bridge as ${who}`, { skip }, () => {
    let world: World;
    let port = 0;
    let peer: ReturnType<typeof peerOf>;
    const runAsEnv: Record<string, string> = runAs ? { TURNBRIDGE_RUN_AS: `${runAs.uid}:${runAs.gid}` } : {};
    before(async () => {
      port = await freePort();
      world = await new World({ uid: 0, gid: 0 }, { bridge: { port, peer: (w) => (peer = peerOf(w, 'tabA')) } }).start();
      // The agent's user passes through the deploy directory and the HOME as it would on a host.
      for (const d of [world.root, world.home, world.deploy]) chmodSync(d, 0o755);
      // A host service's socket anyone may connect to (so the probe is real for the run_as user too).
      chmodSync(join(world.root, 'host.sock'), 0o777);
      // One reply message for the whole report (the page's default splits at 3000 characters).
      writeFileSync(join(world.deploy, 'turnbridge.yaml'), 'local:\n  max_text_chars: 20000\n');
    });
    after(() => world?.close());

    /**
     * B reaches none of A's places; a root it may list (in the box: its own view, made of its own
     * mount points) shows nothing of A's and no state file.
     */
    const assertSeesNothingOfA = (b: Report, a: Report) => {
      const aName = a.probes.own_cwd!.detail.split('/').at(-1)!;
      peer.names.forEach((n, i) => {
        const p = b.probes[`peer_read_${i}`]!;
        if (p.reached && /root|data dir/.test(n)) {
          assert.ok(!p.detail.includes(aName) && !p.detail.includes('turnbridge.sqlite'), `${n}: ${p.detail}`);
        } else {
          assert.equal(p.reached, false, `${n}: ${JSON.stringify(p)}`);
        }
      });
      assert.equal(b.probes.peer_write_0?.reached, false, JSON.stringify(b.probes.peer_write_0));
      assert.equal(b.probes.peer_write_1?.reached, false, JSON.stringify(b.probes.peer_write_1));
    };

    /** B's probes of A's places, by name. */
    const peerProbes = (r: Report) => Object.fromEntries(peer.names.map((n, i) => [n, r.probes[`peer_read_${i}`]?.reached])
      .concat([['write in A workspace', r.probes.peer_write_0?.reached], ['write in A HOME', r.probes.peer_write_1?.reached]]));

    it('default configuration (auto): A works in its own places; B reaches none of A\'s, nor the bridge\'s files, nor any row of the table', async () => {
      const bridge = await startBridge(world, port, runAsEnv);
      try {
        const a = await ask(bridge, 'tabA', 'A leaves its files');
        assert.deepEqual([a.probes.own_cwd?.reached, a.probes.own_home?.reached], [true, true], JSON.stringify(a.probes));
        if (runAs) assert.equal(a.uid, runAs.uid);
        const b = await ask(bridge, 'tabB', 'B spies');
        assert.equal(b.probes.own_cwd?.reached, true);
        assertSeesNothingOfA(b, a);
        for (const name of ATTACKS) {
          assert.ok(b.probes[name], `probe ${name} ran: ${JSON.stringify(b.probes)}`);
          assert.equal(b.probes[name]!.reached, false, `${name} must fail in the box: ${JSON.stringify(b.probes[name])}`);
        }
        assert.equal(b.probes.bridge_port?.reached, false, `the bridge's own port: ${JSON.stringify(b.probes.bridge_port)}`);
        assert.deepEqual(world.survivors(), [], 'the setsid child died with the turn');
        assert.equal(readFileSync(join(peer.write[0]!, 'mark'), 'utf8').startsWith('left by'), true, 'A\'s file is as A left it');
      } finally {
        await bridge.stop();
      }
    });

    it('TURNBRIDGE_SANDBOX=off: the same probes succeed (they are real); with run_as the bridge\'s state file and data dir stay closed', async () => {
      const bridge = await startBridge(world, port, { ...runAsEnv, TURNBRIDGE_SANDBOX: 'off' });
      try {
        await ask(bridge, 'tabA', 'A leaves its files');
        const b = await ask(bridge, 'tabB', 'B spies');
        const peers = peerProbes(b);
        for (const k of ['A workspace file', 'A HOME file', 'A workspace', 'A HOME', 'write in A workspace', 'write in A HOME']) {
          assert.equal(peers[k], true, `${k}, one user for every conversation without the box: ${JSON.stringify(b.probes)}`);
        }
        // Root reads everything; the run_as user meets the bridge's modes: 0710 roots, a 0600 state file, a 0600 .env.
        const closedToAgent = new Set(runAs ? ['data dir', 'workspace root', 'HOMEs root', 'state_file', 'env_file', 'operator_home', 'operator_home_write', 'bridge_environ'] : []);
        for (const k of ['data dir', 'workspace root', 'HOMEs root']) assert.equal(peers[k], !closedToAgent.has(k), `${k}: ${JSON.stringify(b.probes)}`);
        for (const name of ATTACKS) {
          if (BOX_ONLY.has(name) || (ROOT_ONLY.has(name) && runAs)) continue;
          assert.equal(b.probes[name]?.reached, !closedToAgent.has(name), `${name} unsandboxed${runAs ? ' as the run_as user' : ''}: ${JSON.stringify(b.probes[name])}`);
        }
        assert.equal(b.probes.bridge_port?.reached, true, 'unsandboxed, the bridge\'s own port answers');
        assert.ok(world.survivors().length > 0, 'unsandboxed, the setsid child outlived the turn');
      } finally {
        await bridge.stop();
      }
    });
  });
}
