/**
 * Worktree routes from the attacker's side (issue 27): a spy agent (test/fixtures/agents/git-spy.mjs)
 * in its thread's worktree plants code wherever git would run it — the repository's shared
 * config (core.fsmonitor, a clean filter), its hooks, info/attributes, another worktree's git
 * directory, a nested repository's config, its own worktree's `.git` file, the repository's
 * commondir. Then everyone else runs git as they normally do: another thread's agent commits,
 * the bridge makes a new thread's worktree, posts a `diff`, prunes idle worktrees, removes one,
 * doctor lists them, the operator runs `git status` in the main checkout. No payload may run
 * outside a box (its marker directory is a host place no box shows), nor in another thread.
 * As root, and with run_as (a plain user owns the repository and runs the agents).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxProblem } from '../../../src/runner/index.js';
import { worktreeChecks } from '../../../src/doctor/worktree-checks.js';
import { BOT_USER, visibleText } from '../../fakes/slack/index.js';
import { plainUser } from '../sandbox/spy-world.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

const C = 'C0SPY';
const SPY_PROFILE = join(process.cwd(), 'test/fixtures/agents/git-spy.yaml');
const boxMissing = sandboxProblem();
const asRoot = process.getuid?.() === 0 ? false : 'run_as needs the test to run as root';
const user = plainUser();

for (const [who, runAs, skip] of [
  ['root', undefined, boxMissing || false],
  ['root with run_as (a plain user)', typeof user === 'string' ? undefined : user, asRoot || (typeof user === 'string' ? user : false) || boxMissing || false],
] as const) {
  describe(`a worktree spy plants code for git to run, bridge as ${who}`, { skip }, () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'tb-wtspy-')));
    const repo = join(root, 'repo');
    const markers = join(root, 'markers');
    const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], {
      encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' },
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    }).trim();
    let rig: TurnRig;
    let first = '';
    /** What ran outside a box, step by step: `<step>: <trap> as <uid>`. */
    const ran: string[] = [];
    let seen = new Set<string>();
    const check = (step: string) => {
      const now = existsSync(markers) ? readdirSync(markers).flatMap((t) => readFileSync(join(markers, t), 'utf8').trim().split('\n').map((l) => `${t} as ${l.split(' ')[0]}`)) : [];
      for (const line of now) if (!seen.has(line)) ran.push(`${step}: ${line}`);
      seen = new Set(now);
    };

    before(async () => {
      chmodSync(root, 0o755);
      mkdirSync(markers, { mode: 0o777 });
      chmodSync(markers, 0o777);
      mkdirSync(repo);
      if (runAs) chownSync(repo, runAs.uid, runAs.gid);
      git(repo, 'init', '-q', '-b', 'main');
      writeFileSync(join(repo, 'README.txt'), 'the project\n');
      if (runAs) chownSync(join(repo, 'README.txt'), runAs.uid, runAs.gid);
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '-m', 'first');
      first = git(repo, 'rev-parse', 'main');
      rig = await makeTurnRig({
        slack: { streaming: 'edit' },
        config: {
          defaultProfile: SPY_PROFILE,
          routes: [{ platform: 'slack', channel: C, profile: SPY_PROFILE, workspace: repo, worktree: true, worktreeIdleDays: 14 }],
          agent: { workspace: join(root, 'ws'), sandbox: 'bwrap', protectedPaths: [], bridgeDir: '/', ...(runAs ? { runAs } : {}) },
        },
      });
    });
    after(async () => {
      await rig?.close();
      rmSync(root, { recursive: true, force: true });
    });

    async function ask(text: string, thread?: string): Promise<{ thread: string; reply: string }> {
      const m = await rig.fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> ${text}`, ...(thread ? { threadTs: thread } : {}) });
      const t = thread ?? m.ts;
      const parts = await rig.finalReply(C, t, m.ts);
      return { thread: t, reply: parts.map((p) => visibleText(p)).join('') };
    }
    /** A chat command (diff, worktree remove): waits for the bridge's next message in the thread. */
    async function command(text: string, thread: string): Promise<string> {
      const before = rig.fake.botMessages(C, thread).length;
      await rig.fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> ${text}`, threadTs: thread });
      const m = await rig.fake.waitFor(() => rig.fake.botMessages(C, thread)[before], `the answer to ${text}`);
      return m.text || visibleText(m);
    }

    it('no payload runs outside a box or in another thread, whoever runs git next', async () => {
      const b = await ask('write b.txt from B');
      assert.match(b.reply, /^wrote b\.txt/, b.reply);
      const a = await ask(`plant ${markers}`);
      const report = JSON.parse(/\{.*\}/.exec(a.reply)![0]) as { plants: Record<string, string> };
      check('A plants');

      const committed = await ask('commit from B', b.thread);
      assert.match(committed.reply, /^committed [0-9a-f]{7}/, 'B still commits on its branch');
      check('B commits');
      const c = await ask('write c.txt from C');
      assert.match(c.reply, /^wrote c\.txt/, c.reply);
      check('a new thread\'s worktree add');
      const diff = await command('diff', a.thread);
      check('diff');
      assert.ok(diff, 'diff answered');
      for (const { conversation, record } of await rig.bridge.state.worktrees.all()) {
        await rig.bridge.state.worktrees.put(conversation, { ...record, usedAt: Date.now() - 15 * 86_400_000 });
      }
      await rig.bridge.pruneWorktrees();
      check('pruning');
      await worktreeChecks(rig.config);
      check('doctor');
      await command('worktree remove', a.thread);
      check('worktree remove');
      try { git(repo, 'status', '--porcelain'); } catch { /* the main checkout may be broken: what ran is what counts */ }
      check('the operator\'s git status');
      const d = await ask(`plant-commondir ${markers}`);
      const commondir = JSON.parse(/\{.*\}/.exec(d.reply)![0]) as { plants: Record<string, string> };
      try { git(repo, 'status', '--porcelain'); } catch { /* as above */ }
      check('the operator\'s git status after commondir');

      assert.deepEqual(ran, [], 'payloads that ran outside the box');
      // The repository's shared places are not the agent's to write: its config, hooks, info/,
      // other worktrees' git directories, its commondir (each is code, or a way to code, for
      // whoever runs git there next).
      for (const trap of ['config_fsmonitor', 'config_filter', 'info_attributes', 'hook_post-checkout', 'hook_pre-commit', 'hook_reference-transaction', 'other_worktree_gitdir', 'ref_main', 'tag']) {
        assert.notEqual(report.plants[trap], 'ok', `${trap} was planted: ${JSON.stringify(report.plants)}`);
      }
      assert.notEqual(commondir.plants.commondir, 'ok', `the repository's commondir was planted: ${JSON.stringify(commondir.plants)}`);
      assert.equal(git(repo, 'rev-parse', 'main'), first, 'main is where the operator left it');
      // Its own worktree is its own: a nested repository and its own `.git` file it may write.
      assert.equal(report.plants.submodule, 'ok', JSON.stringify(report.plants));
      assert.equal(report.plants.gitfile, 'ok', JSON.stringify(report.plants));
      // The traps in its own worktree did go off, where the spy could have run them itself: in a box.
      const own = (await rig.bridge.state.worktrees.all()).map((x) => x.record.path).find((p) => existsSync(join(p, '.spy')));
      assert.ok(own && existsSync(join(own, '.spy-ran-gitfile')), 'the .git file\'s fsmonitor ran (boxed) when the bridge ran git there');
      // Another thread's worktree (not the spy's own, which holds .spy/): no payload ran there.
      for (const { record } of await rig.bridge.state.worktrees.all()) {
        if (!existsSync(record.path) || existsSync(join(record.path, '.spy'))) continue;
        const spied = readdirSync(record.path).filter((n) => n.startsWith('.spy-ran-'));
        assert.deepEqual(spied, [], `a payload ran in another thread's worktree ${record.path}`);
      }
    });

    it('`diff` shows nothing outside the box: a .git file naming a repository whose work tree is a host directory of secrets', async () => {
      const secrets = join(root, 'secrets');
      mkdirSync(secrets, { recursive: true });
      writeFileSync(join(secrets, 'key.txt'), 'THE-HOST-SECRET\n');
      const t = await ask('write y.txt y');
      assert.equal((await ask(`gitfile-leak ${secrets}`, t.thread)).reply, 'planted');
      await command('diff', t.thread);
      for (const m of rig.fake.botMessages(C, t.thread)) {
        assert.doesNotMatch(`${m.text}\n${JSON.stringify(m.blocks)}`, /THE-HOST-SECRET/);
        for (const f of m.files ?? []) assert.doesNotMatch(rig.fake.fileBytes(f.id)!.toString(), /THE-HOST-SECRET/, 'the secret in the posted diff');
      }
    });

    it('git\'s error quoted in a notice pings no one (a .git file spelt as <!channel>, <!here>, <@U…>)', async () => {
      const t = await ask('write x.txt x');
      assert.equal((await ask('gitfile-ping', t.thread)).reply, 'planted');
      const said = await command('diff', t.thread);
      assert.match(said, /Could not make the diff: git read-tree: fatal: not a git repository/);
      const m = rig.fake.botMessages(C, t.thread).at(-1)!;
      assert.ok(!/<[!@]/.test(m.text ?? '') && !/<[!@]/.test(JSON.stringify(m.blocks)), `a mention in the notice: ${m.text}`);
    });
  });
}
