/**
 * The box's way out (runner/sandbox/egress.ts, relay.ts), from the attacker's side: a profile
 * that allows every host (`*`) still reaches nothing on this machine through the proxy, in any
 * spelling of loopback (`[::ffff:7f00:1]` is how a URL prints ::ffff:127.0.0.1, and got through
 * before the filter asked src/loopback.ts), while an exact loopback entry reaches its one port. And
 * an agent whose very first act is a connection (a script's curl) finds the in-box relay
 * listening: without the relay's gate, one start in three as a plain user found nothing there.
 */
import { strict as assert } from 'node:assert';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseHostRule } from '../../../src/profile/index.js';
import { run, sandboxProblem } from '../../../src/runner/index.js';
import { startEgress, type Egress } from '../../../src/runner/sandbox/egress.js';
import type { Profile } from '../../../src/profile/index.js';

/** CONNECT host:port through the proxy's unix socket: the status line it answers. */
function connectThrough(socketPath: string, authority: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    let got = '';
    s.on('connect', () => s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    s.on('data', (d) => {
      got += d;
      const line = got.split('\r\n')[0]!;
      if (got.includes('\r\n')) { s.destroy(); resolve(line); }
    });
    s.on('error', reject);
  });
}

describe('the egress proxy under allow_hosts: ["*"]', () => {
  let service: Server;
  let port = 0;
  let all: Egress;
  let exact: Egress;
  before(async () => {
    service = createServer((c) => c.end('a service on loopback\n'));
    await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
    port = (service.address() as { port: number }).port;
    all = await startEgress([parseHostRule('*')!]);
    exact = await startEgress([parseHostRule('*')!, parseHostRule(`127.0.0.1:${port}`)!]);
  });
  after(async () => {
    await Promise.all([all.close(), exact.close()]);
    service.close();
  });

  it('refuses this machine in every spelling (403), and admits an exact loopback entry to its one port', async () => {
    for (const host of ['127.0.0.1', 'localhost', '127.1.2.3', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:7f00:1]', '0.0.0.0', '[::]']) {
      assert.match(await connectThrough(all.socketPath, `${host}:${port}`), /^HTTP\/1\.1 403/, host);
    }
    assert.match(await connectThrough(exact.socketPath, `127.0.0.1:${port}`), /^HTTP\/1\.1 200/);
    assert.match(await connectThrough(exact.socketPath, `[::ffff:7f00:1]:${port}`), /^HTTP\/1\.1 403/, 'only the entry as written');
    assert.ok(all.refused.includes(`[::ffff:7f00:1]:${port}`) || all.refused.some((r) => r.endsWith(`:${port}`)), JSON.stringify(all.refused));
  });
});

describe('the in-box relay', { skip: sandboxProblem() ?? false }, () => {
  const root = mkdtempSync(join('/var/tmp', 'tb-relay-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('is listening when the agent starts, so a connection that is the agent\'s first act reaches the proxy', async () => {
    const who = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    const [ws, home] = [join(root, 'ws'), join(root, 'home')];
    chmodSync(root, 0o755);
    for (const d of [ws, home]) {
      mkdirSync(d);
      if (who) chownSync(d, who.uid, who.gid);
    }
    // bash's /dev/tcp: a connect with no process started before it.
    const agent: Profile = {
      dir: '', command: '/bin/bash', env: {}, timeoutSecs: 30, killGraceSecs: 1, streaming: true, permission: false,
      args: ['-c', 'if (exec 3<>/dev/tcp/127.0.0.1/3128) 2>/dev/null; then r=up; else r=down; fi; echo "{\\"type\\":\\"result\\",\\"text\\":\\"$r\\"}"'],
      sandbox: { read: [], allowHosts: [{ host: 'api.example.com' }] },
    };
    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await run(agent, { message: 'connect' }, {}, { launch: { sandbox: 'bwrap', defaultCwd: ws, ...(who ? { runAs: who } : {}) }, dirs: { home }, env: { PATH: process.env.PATH } });
      assert.equal(r.error, null, r.error ?? '');
      seen.push(r.reply);
    }
    assert.deepEqual(seen, Array(12).fill('up'));
  });
});
