/**
 * Thread rules mean what the prompt showed: exact rules byte for byte, prefix rules on one simple
 * command with only the options they list, path rules inside the workspace, no tool-wide rules,
 * a rule for the person it was set for unless "everyone", and rules stored before all that
 * dropped. Each attack of issue 22 runs through the broker: it is asked about again.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { conversationKey, createMemoryStore, openState, parseStoredRules } from '../../../src/state/index.js';
import { applies, describeRule, ruleFor, ruleMatches, ruleMeaning } from '../../../src/bridge/approvals/permission-rules.js';
import type { PermissionRequest } from '../../../src/protocol/types.js';
import { logCapture } from '../../fakes/log-capture.js';
import { bash, rig } from './broker-rig.js';
import { ANA, BOB, BOSS, conv, waitFor } from './helpers.js';

const ws = realpathSync(mkdtempSync(join(tmpdir(), 'tb-rules-ws-')));
const outside = realpathSync(mkdtempSync(join(tmpdir(), 'tb-rules-out-')));
mkdirSync(join(ws, 'src', 'lib'), { recursive: true });
symlinkSync(outside, join(ws, 'src', 'out'));
after(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const tool = (toolName: string, input: Record<string, unknown>): PermissionRequest => ({ requestId: 'r', toolName, input });
const KEY = conversationKey('test', conv('C1', 'th1'));

/** A rule set by clicking `action` on the first prompt, then whether `next` is answered by it (no second prompt). */
async function ruleThen(first: PermissionRequest, next: PermissionRequest, o: { action?: 'allow_thread' | 'allow_thread_all'; nextAuthor?: typeof ANA } = {}) {
  const r = rig();
  const a = r.ask(first, { workspace: ws });
  await r.posted(1);
  await r.act(o.action ?? 'allow_thread', 'p1').run();
  assert.deepEqual(await a, { behavior: 'allow' });
  assert.equal((await r.rules.list(KEY)).length, 1, 'the rule is stored');
  const b = r.ask(next, { workspace: ws, ...(o.nextAuthor ? { author: o.nextAuthor } : {}) });
  let settled = false;
  void b.then(() => { settled = true; });
  await waitFor(() => settled || r.surface.prompts().length >= 2, 'an answer or a second prompt');
  const answered = r.surface.prompts().length >= 2 ? 'prompted' as const : 'answered' as const;
  r.broker.expireAll();
  await b;
  return { answered, r };
}

describe('thread rules: the attacks of issue 22 are asked about again', () => {
  it('an exact rule compares the raw command: a comment turned into a second line is not the approved command', async () => {
    const seen = 'echo ok > /dev/null # rm -rf ~';
    assert.equal(describeRule(ruleFor('Bash', { command: seen })!), `Bash(${seen})`);
    assert.equal((await ruleThen(bash(seen), bash('echo ok > /dev/null #\nrm -rf ~'))).answered, 'prompted');
    assert.equal((await ruleThen(bash(seen), bash('echo  ok > /dev/null # rm -rf ~'))).answered, 'prompted', 'blanks count too');
    assert.equal((await ruleThen(bash(seen), bash(seen))).answered, 'answered');
  });

  it('an input whose command is not a string gets an exact input rule, never a tool-wide one', async () => {
    const arr = await ruleThen(tool('Bash', { command: ['ls'] }), tool('Bash', { command: ['rm', '-rf', '~'] }));
    assert.equal(arr.answered, 'prompted');
    assert.equal(arr.r.surface.prompts()[0]!.view.rule, 'Bash({"command":["ls"]})');
    assert.equal((await ruleThen(tool('Shell', { cmd: 'ls' }), tool('Shell', { cmd: 'rm -rf ~' }))).answered, 'prompted');
    assert.equal((await ruleThen(tool('Shell', { cmd: 'ls' }), tool('Shell', { cmd: 'ls' }))).answered, 'answered');
    assert.equal((await ruleThen(tool('WebFetch', { url: 'https://a.example' }), tool('WebFetch', { url: 'https://b.example' }))).answered, 'prompted');
  });

  it('Bash(git log:*) does not cover an option it does not list: --output=/root/.bashrc is asked about', async () => {
    assert.equal((await ruleThen(bash('git log --oneline'), bash('git log --output=/root/.bashrc'))).answered, 'prompted');
    assert.equal((await ruleThen(bash('git log --oneline'), bash('git log -o /root/.bashrc'))).answered, 'prompted');
    assert.equal((await ruleThen(bash('git log'), bash('git log HEAD > /root/.bashrc'))).answered, 'prompted');
    assert.equal((await ruleThen(bash('npm test'), bash('npm test --prefix /tmp/evil-pkg'))).answered, 'prompted');
    assert.equal((await ruleThen(bash('git log --oneline'), bash('git log --oneline src/lib'))).answered, 'answered');
  });

  it('a Write rule is a path rule inside the workspace: another path, a path outside, .. or a symlink out are asked about', async () => {
    const write = (p: string) => tool('Write', { file_path: p, content: 'x' });
    const inSrc = await ruleThen(write(join(ws, 'src', 'lib', 'a.ts')), write(join(ws, 'src', 'lib', 'deep', 'b.ts')));
    assert.equal(inSrc.answered, 'answered');
    assert.equal(inSrc.r.surface.prompts()[0]!.view.rule, 'Write(src/lib/**)');
    assert.match(inSrc.r.surface.prompts()[0]!.view.ruleMeaning!, new RegExp(`under src/lib/ in the workspace ${ws}`));
    for (const p of ['/root/.bashrc', `${ws}/src/lib/../../../x`, `${ws}/src/lib/../lib/c.ts`, join(ws, 'src', 'out', 'x'), join(ws, 'README.md'), join(ws, 'src', 'lib', '.git', 'hooks', 'pre-commit')]) {
      assert.equal((await ruleThen(write(join(ws, 'src', 'lib', 'a.ts')), write(p))).answered, 'prompted', p);
    }
    assert.equal((await ruleThen(write(join(ws, 'src', 'lib', 'a.ts')), tool('Edit', { file_path: join(ws, 'src', 'lib', 'a.ts'), old_string: 'a', new_string: 'b' }))).answered, 'prompted', 'one tool per rule');
    assert.equal((await ruleThen(write(join(ws, 'src', 'lib', 'a.ts')), tool('Write', { file_path: join(ws, 'src', 'lib', 'b.ts'), content: 'x', path: '/etc/passwd' }))).answered, 'prompted', 'an unknown field');
  });

  it('a file tool outside the workspace, through a symlink out, or with no workspace is offered no rule', async () => {
    for (const p of ['/root/.bashrc', join(ws, 'src', 'out', 'x'), `${ws}/../x`, 'src/../src/lib/a.ts']) assert.equal(ruleFor('Write', { file_path: p, content: '' }, ws), undefined, p);
    assert.equal(ruleFor('Write', { file_path: join(ws, 'src', 'a.ts'), content: '' }), undefined);
    assert.equal(ruleFor('Write', { file_path: join(ws, 'src', 'a.ts'), content: '', path: '/etc/passwd' }, ws), undefined, 'a field Write does not have');
    assert.equal(describeRule(ruleFor('Read', { file_path: 'src/lib/a.ts' }, ws)!), 'Read(src/lib/**)', 'relative to the workspace');
    assert.equal(describeRule(ruleFor('Edit', { file_path: join(ws, '.github', 'ci.yml'), old_string: 'a', new_string: 'b' }, ws)!), 'Edit(.github/ci.yml)', 'a dot-directory: that file only');
    const r = rig();
    const d = r.ask(tool('Write', { file_path: '/root/.bashrc', content: 'x' }), { workspace: ws });
    await r.posted(1);
    const view = r.surface.prompts()[0]!.view;
    assert.equal(view.rule, undefined, 'neither rule choice is offered');
    const click = r.act('allow_thread', 'p1');
    await click.run();
    assert.deepEqual(click.told, ['That choice is not available here.']);
    r.broker.expireAll();
    await d;
  });

  it('a rule set by ana does not answer ben: "for everyone in this thread" is a separate choice', async () => {
    const mine = await ruleThen(bash('npm test'), bash('npm test'), { nextAuthor: BOB });
    assert.equal(mine.answered, 'prompted', "ana's rule does not run ben's request");
    const view = mine.r.surface.prompts()[0]!.view;
    assert.deepEqual(view.ruleFor, ANA);
    assert.match(view.ruleMeaning!, /^npm test with any other arguments inside the workspace/);
    const all = await ruleThen(bash('npm test'), bash('npm test src'), { action: 'allow_thread_all', nextAuthor: BOB });
    assert.equal(all.answered, 'answered');
    assert.deepEqual(all.r.lines, ['auto-allowed Bash: npm test, rule set by @ana for everyone in this thread']);
    const [stored] = await all.r.rules.list(KEY);
    assert.deepEqual(stored!.scope, { kind: 'thread' });
    assert.deepEqual(stored!.setBy, { platform: 'test', id: 'U_ANA', name: 'ana' });
    await all.r.broker.idle();
    assert.equal(all.r.surface.prompts()[0]!.view.how, 'thread_all');
    const audit = await all.r.audit.since(0);
    const label = 'Bash(npm test:*) for everyone in this thread';
    assert.deepEqual(audit.flatMap((e) => (e.kind === 'decision' ? [[e.source, e.rule]] : [])).slice(0, 2), [['thread', label], ['rule', label]]);
    assert.ok(audit.some((e) => e.kind === 'rule-added' && e.rule === label && e.setBy.platform === 'test'), 'the rule added, for whom, in the trail');
  });

  it("an approver's rule on bob's prompt answers bob's requests, not the approver's", async () => {
    const r = rig({ groupMembers: { S_OPS: ['U_BOSS'] } });
    const first = r.ask(bash('npm test'), { author: BOB, groups: ['S_OPS'] });
    await r.posted(1);
    assert.deepEqual(r.surface.prompts()[0]!.view.ruleFor, BOB);
    await r.act('allow_thread', 'p1', BOSS).run();
    assert.deepEqual(await first, { behavior: 'allow' });
    const [stored] = await r.rules.list(KEY);
    assert.deepEqual([stored!.scope, stored!.setBy.id], [{ kind: 'person', person: { platform: 'test', id: 'U_BOB', name: 'bob' } }, 'U_BOSS']);
    assert.deepEqual(await r.ask(bash('npm test src'), { author: BOB }), { behavior: 'allow' });
    assert.deepEqual(r.lines, ['auto-allowed Bash: npm test, rule set by @boss']);
    const boss = r.ask(bash('npm test'), { author: BOSS });
    await r.posted(2);
    r.broker.expireAll();
    await boss;
  });

  it('the same id on another platform is someone else', async () => {
    const r = rig();
    await r.rules.add(KEY, { v: 2, rule: ruleFor('Bash', { command: 'npm test' })!, scope: { kind: 'person', person: { platform: 'discord', id: 'U_ANA' } }, setBy: { platform: 'discord', id: 'U_ANA' }, setAt: 0 });
    const d = r.ask(bash('npm test'));
    await r.posted(1);
    r.broker.expireAll();
    await d;
  });
});

describe('thread rules: what each kind matches', () => {
  it('prefix rules only for known read-or-test subcommands; anything else is exact', () => {
    assert.equal(describeRule(ruleFor('Bash', { command: 'npm test -- --watch=false' })!), 'Bash(npm test:* --watch=false)');
    for (const command of ['make deploy', 'cp README docs', 'rm -rf /tmp/x', 'npm run build', 'git push origin main', 'FOO=1 git log', 'git log /etc', 'ls']) {
      const rule = ruleFor('Bash', { command })!;
      assert.equal(rule.kind, 'exact', command);
      assert.ok(ruleMatches(rule, 'Bash', { command }));
    }
    const r = ruleFor('Bash', { command: 'git status' })!;
    for (const command of ['git status; rm -rf ~', 'git status && x', 'git status | sh', 'git status `x`', 'git status $(x)', 'git status &', 'git status <(x)', 'git status <<EOF', 'git status\nrm -rf ~', 'git status *', "git status \"$HOME\"", 'git status ../..', 'git status ~/x', 'git statusx', 'git  status-x']) {
      assert.ok(!ruleMatches(r, 'Bash', { command }), command);
    }
    assert.ok(ruleMatches(r, 'Bash', { command: "git status 'a b' src" }));
    assert.ok(ruleMatches(r, 'Bash', { command: 'git status', description: 'x', timeout: 5, run_in_background: true }));
    assert.ok(!ruleMatches(r, 'Bash', { command: 'git status', dangerouslyDisableSandbox: true }), 'a sandbox escape is always asked');
    assert.equal(ruleFor('Bash', { command: 'git status', dangerouslyDisableSandbox: true }), undefined);
    assert.ok(!ruleMatches(r, 'Bash', { command: 'git status', cwd: '/etc' }), 'an unknown field: not a plain shell input');
    assert.ok(!ruleMatches(r, 'Shell', { command: 'git status' }));
    assert.equal(ruleMeaning(ruleFor('Bash', { command: 'ls -la' })!), 'exactly this command, byte for byte');
    assert.equal(describeRule(ruleFor('Bash', { command: 'say "hi"' })!), 'Bash("say \\"hi\\"")', 'shown as a JSON string when it would not read as itself');
  });
});

describe('thread rules: stored rules from before', () => {
  it('are dropped with one warn line: a tool-wide Write no longer covers any path, an old exact rule no longer covers everyone', async () => {
    const cap = logCapture();
    const state = openState(createMemoryStore(), { logger: cap.logger });
    const store = state.rules;
    await state.store.set('kv', `rules:${KEY}`, [
      { rule: { kind: 'tool', tool: 'Write' }, setBy: ANA, setAt: 0 },
      { rule: { kind: 'prefix', tool: 'Bash', prefix: 'npm test' }, setBy: ANA, setAt: 0 },
    ]);
    const q = { toolName: 'Write', input: { file_path: '/root/.bashrc', content: 'x' }, requester: { platform: 'test', user: ANA }, workspace: ws };
    assert.equal(await store.find(KEY, (s) => applies(s, q)), undefined);
    assert.equal(await store.find(KEY, (s) => applies(s, q)), undefined);
    const warns = cap.lines.filter((l) => /dropped permission rules/.test(String(l.msg)));
    assert.equal(warns.length, 1, 'one line, then the store holds none of them');
    assert.equal(warns[0]!.dropped, 2);
    assert.equal(await state.store.get('kv', `rules:${KEY}`), undefined);
    assert.deepEqual(parseStoredRules([{ v: 2, rule: { kind: 'tool', tool: 'Write' }, scope: { kind: 'thread' }, setBy: { platform: 'test', id: 'x' }, setAt: 0 }]).rules, [], 'no tool-wide kind at all');
  });
});
