/**
 * In the box, another conversation's workspace is not there, wherever the workspace root lies
 * (here under /var/tmp: neither the box's own /tmp nor an operator's home hides it). A spy agent
 * (a real process) in conversation B's workspace tries A's file: read unsandboxed, gone boxed.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, it } from 'node:test';
import { run, sandboxProblem, type LaunchPolicy } from '../../../src/runner/index.js';
import { silentLogger } from '../../../src/log.js';
import type { Profile } from '../../../src/profile/index.js';

const AGENTS = fileURLToPath(new URL('../../fixtures/agents/', import.meta.url));
const base = existsSync('/var/tmp') ? '/var/tmp' : undefined;
const root = base ? mkdtempSync(join(base, 'tb-conv-box-')) : '';
after(() => { if (root) rmSync(root, { recursive: true, force: true }); });

const skip = !base ? 'no /var/tmp' : sandboxProblem() ?? false;

it('conversation B\'s agent reads A\'s workspace file unsandboxed, and finds nothing of it in the box', { skip }, async () => {
  const workspaces = join(root, 'workspaces');
  const [a, b, home] = [join(workspaces, 'conv-a'), join(workspaces, 'conv-b'), join(root, 'homes', 'conv-b')];
  for (const d of [a, b, home]) mkdirSync(d, { recursive: true });
  writeFileSync(join(a, 'notes.txt'), 'A\'s private notes');
  const spy: Profile = {
    dir: AGENTS, command: process.execPath, args: [join(AGENTS, 'spy.mjs')], timeoutSecs: 30, killGraceSecs: 1, streaming: true, permission: false,
    env: { SPY_TARGETS: JSON.stringify([join(a, 'notes.txt'), workspaces]) },
  };
  const report = async (sandbox: LaunchPolicy['sandbox']) => {
    const r = await run(spy, { message: 'spy' }, {}, { launch: { defaultCwd: workspaces, protectedPaths: [], sandbox }, dirs: { workspace: b, home }, logger: silentLogger });
    assert.equal(r.error, null, r.error ?? '');
    return JSON.parse(r.reply) as { cwd: string; results: Array<{ path: string; ok: boolean; text?: string; entries?: string[] }> };
  };
  const off = await report('off');
  assert.equal(off.cwd, b);
  assert.equal(off.results[0]!.text, 'A\'s private notes', 'the probe is real');
  const boxed = await report('bwrap');
  assert.equal(boxed.cwd, b);
  assert.equal(boxed.results[0]!.ok, false, JSON.stringify(boxed.results[0]));
  assert.deepEqual(boxed.results[1]!.entries, ['conv-b'], 'the root shows only its own workspace');
});
