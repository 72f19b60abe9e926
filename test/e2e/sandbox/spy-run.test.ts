/**
 * Issue 21, from the attacker's side: a spy agent (test/fixtures/agents/box-spy.mjs) run through
 * `turnbridge run` (the real CLI process) from a deploy directory with a .env and a state file,
 * an operator HOME holding a key, Redis and another service on loopback, a UDP (DNS) responder,
 * a host unix socket. With the DEFAULT configuration (TURNBRIDGE_SANDBOX unset: auto) every probe
 * fails, while the profile's one allowed host is reached through the box's proxy; with
 * TURNBRIDGE_SANDBOX=off the same probes succeed, so they are real. As root and as a plain user.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sandboxProblem } from '../../../src/runner/index.js';
import { ATTACKS, BOX_ONLY, ROOT_ONLY, World, plainUser } from './spy-world.js';

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
