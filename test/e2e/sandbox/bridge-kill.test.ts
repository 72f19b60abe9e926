/**
 * Issue 21, "nothing outlives the turn", for a bridge that dies: kill -9 of `turnbridge start`
 * (its whole process group) while an agent in the default box (TURNBRIDGE_SANDBOX unset: auto)
 * runs and has started a `setsid` grandchild. The box's PID namespace and --die-with-parent end
 * both with the bridge; nothing waits for a restart's recovery. Unsandboxed (the crash tests,
 * test/e2e/crash-child.ts) the same agents outlive the bridge until recovery ends them.
 */
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sandboxProblem } from '../../../src/runner/index.js';
import { crashWorld } from '../crash-child.js';

const boxMissing = sandboxProblem();

/** Host pids whose command line holds `marker` (processes inside a box are listed in the host's /proc too). */
function withMarker(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) pids.push(Number(name));
    } catch { /* gone meanwhile */ }
  }
  return pids.filter((p) => p !== process.pid);
}

/** A process in a nested PID namespace has more than one id on its NSpid line. */
function inChildPidNamespace(pid: number): boolean {
  let status = '';
  try { status = readFileSync(`/proc/${pid}/status`, 'utf8'); } catch { return false; }
  const line = /^NSpid:\s*(.+)$/m.exec(status)?.[1] ?? '';
  return line.trim().split(/\s+/).length > 1;
}

describe('a bridge killed with -9 takes its boxed agents with it', { skip: boxMissing ?? false }, () => {
  it('the agent and its setsid grandchild are gone once the bridge is, without a restart', async () => {
    const marker = `tb-boxed-${randomUUID()}`;
    // An agent that starts a grandchild in a session of its own, says so, and hangs; both carry the marker.
    const agent = [
      "const { spawn } = require('node:child_process');",
      `spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000) /* ${marker} */'], { detached: true, stdio: 'ignore' }).unref();`,
      "process.stdout.write(JSON.stringify({ type: 'partial', text: 'holding ' }) + '\\n');",
      'setInterval(() => {}, 1000);',
    ].join('\n');
    // Beside the data dirs in the temp dir, outside every path the box hides.
    const profile = join(tmpdir(), `${marker}.yaml`);
    writeFileSync(profile, `command: node\nargs: ["-e", ${JSON.stringify(agent)}, "${marker}"]\ntimeout_secs: 600\n`);
    const world = await crashWorld({ TURNBRIDGE_SANDBOX: 'auto', TURNBRIDGE_PROFILE: profile }, '');
    try {
      const bridge = world.start();
      const url = await bridge.url;
      const sent = await fetch(`${url}local/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page: 'boxed', text: 'hold' }) });
      assert.equal(sent.status, 202);
      // bwrap itself (outside the namespace) carries the agent's argv too; the agent and its grandchild are inside.
      await world.until(() => withMarker(marker).filter(inChildPidNamespace).length >= 2 || undefined, 'the boxed agent and its setsid grandchild to run');

      await bridge.kill9();
      await world.until(() => withMarker(marker).length === 0 || undefined, 'every process of the box to end with the bridge');
    } finally {
      await world.cleanup();
      rmSync(profile, { force: true });
    }
  });
});
