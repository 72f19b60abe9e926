/**
 * `turnbridge run` and `chat` read the configuration of the directory they start in
 * (turnbridge.yaml, .env), and their agent works in that directory: a boxed agent can write both
 * (test/fixtures/agents/config-plant.mjs plants `agent.sandbox: off` and `TURNBRIDGE_SANDBOX=off`).
 * The next run there must still box its agent: the directory's files may make the box required,
 * never take it away; only the invoking environment (TURNBRIDGE_SANDBOX=off) does. Real CLI
 * processes, the real box.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { sandboxProblem } from '../../../src/runner/index.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/turnbridge.js');
const dir = mkdtempSync(join(tmpdir(), 'tb-config-plant-'));
const project = join(dir, 'project');
const profile = join(dir, 'profile.yaml');
after(() => rmSync(dir, { recursive: true, force: true }));

function run(cmd: 'run' | 'chat', env: Record<string, string> = {}): { code: number | null; box?: string; planted?: string[]; err: string } {
  const args = cmd === 'run' ? ['run', profile, '--message', 'plant', '--json'] : ['chat', profile];
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: project, encoding: 'utf8', input: cmd === 'chat' ? 'plant\n' : '',
    env: { PATH: process.env.PATH, HOME: dir, TURNBRIDGE_DATA_DIR: join(dir, 'data'), ...env },
  });
  const text = cmd === 'run' ? (JSON.parse(r.stdout || '{}') as { reply?: string }).reply : /\{"box".*\}/.exec(r.stdout)?.[0];
  return { code: r.status, ...(text ? JSON.parse(text) as { box: string; planted: string[] } : {}), err: r.stderr };
}

describe('a boxed agent of turnbridge run plants a configuration that would unbox the next run', { skip: sandboxProblem() ?? false }, () => {
  it('the next run and chat in that directory box their agent all the same, and say why; TURNBRIDGE_SANDBOX=off in the environment still unboxes', () => {
    spawnSync('mkdir', [project]);
    writeFileSync(profile, `command: node\nargs: [${JSON.stringify(join(ROOT, 'test/fixtures/agents/config-plant.mjs'))}]\n`);
    const first = run('run');
    assert.equal(first.code, 0, first.err);
    assert.equal(first.box, 'bwrap');
    assert.deepEqual(first.planted, ['turnbridge.yaml', '.env'], 'it works in the directory: it can write there');
    assert.match(readFileSync(join(project, 'turnbridge.yaml'), 'utf8'), /sandbox: off/);

    const second = run('run');
    assert.equal(second.code, 0, second.err);
    assert.equal(second.box, 'bwrap', 'the planted files did not unbox the next run');
    assert.match(second.err, /agent\.sandbox: off in .*\.env is not taken by turnbridge run .*: the agent runs in the box/);
    const chat = run('chat');
    assert.equal(chat.box, 'bwrap', `chat too: ${chat.err}`);

    rmSync(join(project, '.env'));
    const yaml = run('run');
    assert.equal(yaml.box, 'bwrap', 'turnbridge.yaml alone neither');
    assert.match(yaml.err, new RegExp(`agent\\.sandbox: off in ${join(project, 'turnbridge.yaml').replace(/[.]/g, '\\.')} is not taken`));

    const meant = run('run', { TURNBRIDGE_SANDBOX: 'off' });
    assert.equal(meant.box, 'none', 'the operator\'s own environment still unboxes');
    assert.equal(meant.err, '');
  });
});
