/**
 * End to end with a real git repository: a Slack route with `workspace:` and `worktree: true`,
 * real Bolt, the real bridge and agent processes, in the agent box when it can start. Two threads
 * of the route get two worktrees on two branches; an edit in one is not in the other nor in the
 * repository; a commit made by the agent in its box lands on its branch; `diff` posts the change
 * as a file with a summary; pruning removes a clean idle worktree and keeps a dirty one (doctor
 * lists it); `worktree remove` refuses a dirty one unless forced; the next message makes a
 * removed worktree again from its branch; `new` keeps it; with `worktree_base: main`, a thread's
 * branch starts from main although the repository's HEAD is on another branch.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxProblem } from '../../../src/runner/index.js';
import { worktreeChecks } from '../../../src/doctor/worktree-checks.js';
import { BOT_USER, visibleText } from '../../fakes/slack/index.js';
import { AGENT_PROFILE, makeTurnRig, type TurnRig } from './turn-rig.js';

const C = 'C0REPO';
const boxed = !sandboxProblem();
const root = realpathSync(mkdtempSync(join(tmpdir(), 'tb-worktrees-')));
const repo = join(root, 'repo');
const project = join(root, 'project');
const sided = join(root, 'sided');
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' } }).trim();

describe(`slack: a worktree per thread (${boxed ? 'in the agent box' : 'unsandboxed: the box cannot start here'})`, () => {
  let rig: TurnRig;
  before(async () => {
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    execFileSync('mkdir', [project]);
    writeFileSync(join(repo, 'README.md'), 'the project\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'first');
    // A repository whose checkout is on a side branch one commit past main.
    execFileSync('git', ['init', '-q', '-b', 'main', sided]);
    writeFileSync(join(sided, 'README.md'), 'on main\n');
    git(sided, 'add', '-A');
    git(sided, 'commit', '-q', '-m', 'main');
    git(sided, 'checkout', '-q', '-b', 'side');
    writeFileSync(join(sided, 'side.txt'), 'only on side\n');
    git(sided, 'add', '-A');
    git(sided, 'commit', '-q', '-m', 'side');
    rig = await makeTurnRig({
      slack: { streaming: 'edit' },
      config: {
        routes: [
          { platform: 'slack', channel: C, profile: AGENT_PROFILE, workspace: repo, worktree: true, worktreeIdleDays: 14 },
          { platform: 'slack', channel: 'C0PROJ', profile: AGENT_PROFILE, workspace: project },
          { platform: 'slack', channel: 'C0BASE', profile: AGENT_PROFILE, workspace: sided, worktree: true, worktreeBase: 'main' },
        ],
        agent: { workspace: join(root, 'ws'), sandbox: boxed ? 'bwrap' : 'off', protectedPaths: [], bridgeDir: '/' },
      },
    });
  });
  after(async () => {
    await rig.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** One message in a thread (a new thread when `thread` is absent): its final reply's text. */
  async function ask(text: string, thread?: string, channel = C): Promise<{ thread: string; reply: string }> {
    const m = await rig.fake.userMessage({ channel, user: 'U0ANA', text: `<@${BOT_USER}> ${text}`, ...(thread ? { threadTs: thread } : {}) });
    const t = thread ?? m.ts;
    const parts = await rig.finalReply(channel, t, m.ts);
    return { thread: t, reply: parts.map((p) => visibleText(p)).join('') };
  }
  /** The newest message of the bot in a thread (a command's answer). */
  const said = (thread: string, what: RegExp) => rig.fake.waitFor(() => rig.fake.botMessages(C, thread).map((m) => m.text || visibleText(m)).find((t) => what.test(t)), `${what}`);

  let a = '';
  let b = '';
  let treeA = '';
  let treeB = '';

  it('two threads get two worktrees on two branches; an edit in one is in neither the other nor the repository', async () => {
    const first = await ask('write notes.txt from thread A');
    a = first.thread;
    const mA = /^wrote notes\.txt in (\S+) on (turnbridge\/[0-9a-f]{12})/.exec(first.reply);
    assert.ok(mA, first.reply);
    treeA = mA[1]!;
    assert.match(first.reply, new RegExp(`\\(box: ${boxed ? 'bwrap' : 'none'}\\)`), 'where the agent ran');
    assert.match(first.reply, /Working in a worktree of .* on branch `turnbridge\/[0-9a-f]{12}` \(from HEAD at [0-9a-f]{7}\)/);
    const second = await ask('read notes.txt');
    b = second.thread;
    assert.equal(second.reply.split('\n')[0], 'notes.txt: missing', 'thread B does not see thread A\'s edit');
    const wrote = await ask('write other.txt from thread B', b);
    const mB = /^wrote other\.txt in (\S+) on (turnbridge\/[0-9a-f]{12})/.exec(wrote.reply);
    assert.ok(mB, wrote.reply);
    treeB = mB[1]!;
    assert.notEqual(treeA, treeB);
    assert.notEqual(mA[2], mB[2], 'two branches');
    assert.equal(git(treeA, 'branch', '--show-current'), mA[2]);
    assert.equal(git(repo, 'status', '--porcelain'), '', 'the repository\'s own checkout is untouched');
    assert.equal(existsSync(join(repo, 'notes.txt')), false);
    assert.equal((await ask('read notes.txt', a)).reply.split('\n')[0], 'notes.txt: from thread A', 'the same thread finds its worktree again');
  });

  it('a commit made by the agent (in its box) lands on its branch; `diff` posts the change as a file with a summary', async () => {
    const committed = await ask('commit notes from A', a);
    assert.match(committed.reply, /^committed [0-9a-f]{7}/);
    const branchA = git(treeA, 'branch', '--show-current');
    assert.match(git(repo, 'log', '--format=%s', branchA, '-1'), /notes from A/, 'the commit is in the repository, on the branch');
    writeFileSync(join(treeA, 'draft.txt'), 'not committed yet\n');
    await rig.fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> diff`, threadTs: a });
    const post = await rig.fake.waitFor(() => rig.fake.botMessages(C, a).find((m) => m.files?.some((f) => f.name.endsWith('.diff'))), 'the diff');
    const patch = rig.fake.fileBytes(post.files![0]!.id)!.toString();
    assert.match(patch, /\+\+\+ b\/notes\.txt\n@@ .* @@\n\+from thread A/);
    assert.match(patch, /\+\+\+ b\/draft\.txt/, 'uncommitted and new files too');
    assert.doesNotMatch(patch, /other\.txt/, 'not thread B\'s');
    assert.match(JSON.stringify(post.blocks), /2 files changed, 2 insertions/);
    rmSync(join(treeA, 'draft.txt'));
    await rig.fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> diff`, threadTs: b });
    const postB = await rig.fake.waitFor(() => rig.fake.botMessages(C, b).find((m) => m.files?.some((f) => f.name.endsWith('.diff'))), 'the diff of B');
    assert.match(rig.fake.fileBytes(postB.files![0]!.id)!.toString(), /\+\+\+ b\/other\.txt/);
  });

  it('pruning removes a clean idle worktree (its branch stays) and keeps a dirty one, which doctor lists', async () => {
    // Both conversations idle for 15 days: A is clean (committed), B has other.txt uncommitted.
    for (const { conversation, record } of await rig.bridge.state.worktrees.all()) {
      await rig.bridge.state.worktrees.put(conversation, { ...record, usedAt: Date.now() - 15 * 86_400_000 });
    }
    const report = await rig.bridge.pruneWorktrees();
    assert.deepEqual(report, { removed: [treeA], kept: [treeB] });
    assert.equal(existsSync(treeA), false);
    assert.equal(existsSync(join(treeB, 'other.txt')), true);
    assert.match(git(repo, 'branch', '--list'), /turnbridge\//, 'the branches stay');
    const lines = await worktreeChecks(rig.config);
    const kept = lines.find((l) => l.status === 'warn');
    assert.ok(kept, JSON.stringify(lines));
    assert.match(kept.text, new RegExp(`kept although idle 15 days \\(uncommitted changes\\): ${treeB}`));
  });

  it('`worktree remove` refuses uncommitted changes unless forced; a removed worktree comes back from its branch; `new` keeps it', async () => {
    await rig.fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> worktree remove`, threadTs: b });
    await said(b, /uncommitted changes: commit them/);
    assert.equal(existsSync(treeB), true);
    await rig.fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> worktree remove force`, threadTs: b });
    await said(b, /Removed the worktree\. Branch `turnbridge\/[0-9a-f]{12}` stays/);
    assert.equal(existsSync(treeB), false);
    // A was pruned: its next message makes the worktree again, from its branch, with its commit.
    const back = await ask('read notes.txt', a);
    assert.equal(back.reply.split('\n')[0], 'notes.txt: from thread A');
    assert.match(back.reply, /Working in a worktree of .* again on branch/);
    await rig.fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> new`, threadTs: a });
    await said(a, /The worktree and its branch stay/);
    assert.equal(existsSync(treeA), true);
  });

  it('a route with workspace: (no worktree): the agent works in the project itself, and its outbox still reaches the thread', async () => {
    const wrote = await ask('write hello.txt hi from the project', undefined, 'C0PROJ');
    assert.match(wrote.reply, new RegExp(`^wrote hello\\.txt in ${project} on .*\\(box: ${boxed ? 'bwrap' : 'none'}\\)`));
    assert.equal(execFileSync('cat', [join(project, 'hello.txt')], { encoding: 'utf8' }), 'hi from the project');
    const out = await ask('outbox', wrote.thread, 'C0PROJ');
    const outbox = /left files in (\S+)/.exec(out.reply)![1]!;
    assert.ok(!outbox.startsWith(project), 'the outbox is the conversation\'s own, not in the shared project');
    const post = await rig.fake.waitFor(() => rig.fake.botMessages('C0PROJ', wrote.thread).find((m) => m.files?.length), 'the files');
    assert.deepEqual(post.files!.map((f) => f.name), ['data.csv', 'plot.png']);
  });

  it('worktree_base: main: a new thread\'s branch starts from main\'s commit, not from the side branch the repository is on', async () => {
    const main = git(sided, 'rev-parse', 'main');
    assert.notEqual(git(sided, 'rev-parse', 'HEAD'), main, 'the repository\'s HEAD is past main');
    const { reply } = await ask('read side.txt', undefined, 'C0BASE');
    assert.equal(reply.split('\n')[0], 'side.txt: missing', 'the side branch\'s commit is not in the worktree');
    const notice = /on branch `(turnbridge\/[0-9a-f]{12})` \(from main at ([0-9a-f]{7})\)/.exec(reply);
    assert.ok(notice, reply);
    assert.equal(notice[2], main.slice(0, 7), 'the notice names main and its commit');
    assert.equal(git(sided, 'rev-parse', notice[1]!), main, 'the branch starts at main\'s commit');
    assert.equal(git(sided, 'branch', '--show-current'), 'side', 'the repository\'s own checkout stays on its branch');
  });
});
