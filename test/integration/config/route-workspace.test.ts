/**
 * A route's project (`workspace:`) and worktrees (`worktree: true`, `worktree_base:`,
 * `worktree_idle_days:`), checked once at start-up: a path that is not a directory, a worktree
 * route without a repository, a base that names no commit are refused naming the field and what
 * to do; a good route reads back with its absolute path.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/index.js';
import { configError } from '../../unit/config/config-error.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-route-ws-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const plain = join(dir, 'plain');
const repo = join(dir, 'repo');
const empty = join(dir, 'empty-repo');
mkdirSync(plain);
execFileSync('git', ['init', '-q', '-b', 'main', repo]);
writeFileSync(join(repo, 'a.txt'), 'a');
execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@x.invalid', 'add', '-A']);
execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@x.invalid', 'commit', '-q', '-m', 'a']);
execFileSync('git', ['init', '-q', empty]);

function load(route: string) {
  const file = join(dir, `tb-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `routes:\n  - profile: a.yaml\n    channel: C0123ABCD\n${route.split('\n').map((l) => `    ${l}`).join('\n')}\n`);
  return () => loadConfig({ file, env: {} });
}

describe('route workspace and worktrees', () => {
  it('reads a project and a worktree route, paths made absolute against the config file', () => {
    assert.equal(load('workspace: plain')().routes[0]!.workspace, plain);
    const r = load('workspace: repo\nworktree: true\nworktree_base: main\nworktree_idle_days: 3')().routes[0]!;
    assert.deepEqual([r.workspace, r.worktree, r.worktreeBase, r.worktreeIdleDays], [repo, true, 'main', 3]);
  });

  it('refuses what cannot work, naming the field', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['workspace: missing', 'routes[0].workspace', /an existing directory/],
      ['worktree: true', 'routes[0].worktree', /a route with `workspace:`/],
      ['workspace: plain\nworktree_base: main', 'routes[0].worktree_base', /a route with worktree: true/],
      ['workspace: plain\nworktree: true', 'routes[0].workspace', /a git repository/],
      ['workspace: repo\nworktree: true\nworktree_base: no-such-branch', 'routes[0].worktree_base', /a branch, tag or commit/],
      ['workspace: empty-repo\nworktree: true', 'routes[0].workspace', /a repository with a first commit/],
      ['workspace: repo\nworktree: true\nworktree_idle_days: 0', 'routes[0].worktree_idle_days', /./],
      ['workspace: repo\nworktree: yes please', 'routes[0].worktree', /true or false/],
    ];
    for (const [yaml, field, expected] of cases) {
      const e = configError(load(yaml), 'TB_CONFIG_INVALID');
      assert.equal(e.field, field, yaml);
      assert.match(e.message, expected, yaml);
    }
  });
});
