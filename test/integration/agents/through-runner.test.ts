// The shipped profiles (and a hub-layout profile) run unchanged through loadProfile() + run().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadProfile } from '../../../src/profile/index.js';
import { run } from '../../../src/runner/index.js';
import type { PermissionRequest, PartialChunk } from '../../../src/protocol/types.js';
import { ROOT, FAKE_CLI, makeTempDir, removeDir, readLog } from './wrapper-harness.js';

/** Bridge env: the fake CLI first on PATH, a temp HOME (the fake logs to $HOME/.fake-cli.jsonl). */
function bridgeEnv(fake: string, home: string): NodeJS.ProcessEnv {
  return { PATH: `${join(FAKE_CLI, fake)}:${process.env.PATH ?? ''}`, HOME: home, ANTHROPIC_API_KEY: 'sk-test-not-real', CLAUDE_MODEL: 'sonnet' };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fact = Record<string, any>;

function fakeLog(home: string): Fact[] {
  return readLog(home, '.fake-cli.jsonl');
}

/** The first fact that has `key`; fails the test when there is none. */
function fact(log: Fact[], pred: (f: Fact) => boolean): Fact {
  const f = log.find(pred);
  assert.ok(f, `no such fact in the fake CLI log: ${JSON.stringify(log)}`);
  return f;
}

test('profiles/claude-code/profile.yaml through run(): Allow reaches claude, partials, session id and usage come back', async () => {
  const home = makeTempDir();
  try {
    const profile = await loadProfile(join(ROOT, 'profiles/claude-code/profile.yaml'));
    assert.equal(profile.permission, true);
    const requests: PermissionRequest[] = [];
    const partials: PartialChunk[] = [];
    const result = await run(profile, { message: '[permission] delete the notes' }, {
      onPartial: (p) => partials.push(p),
      onPermissionRequest: async (req) => { requests.push(req); return { behavior: 'allow' }; },
    }, { env: bridgeEnv('claude', home), timeoutMs: 20_000 });
    assert.equal(result.error, null);
    assert.equal(result.exitCode, 0);
    assert.equal(result.sessionId, 'c1a0de00-0000-4000-8000-000000000001');
    assert.deepEqual(requests, [{ requestId: 'req-7f3a', toolName: 'Bash', input: { command: 'rm -f notes.txt', description: 'Remove notes' }, description: 'Running Bash: rm -f notes.txt', toolUseId: 'toolu_p1' }]);
    assert.deepEqual(partials, [{ text: 'Running Bash: rm -f notes.txt\n', role: 'thinking' }, { text: 'Ran: rm -f notes.txt' }]);
    assert.equal(result.reply, '');
    assert.equal(result.usage?.cost_usd, 0.0123);
    const log = fakeLog(home);
    const argv: string[] = fact(log, (f) => f.argv).argv;
    assert.ok(argv.includes('--permission-prompt-tool') && argv.includes('--model'), argv.join(' '));
    const control = fact(log, (f) => f.stdin?.type === 'control_response');
    assert.deepEqual(control.stdin.response.response, { behavior: 'allow', updatedInput: { command: 'rm -f notes.txt', description: 'Remove notes' } });
  } finally {
    removeDir(home);
  }
});

test('profiles/claude-code-plan/profile.yaml: the claude-code wrapper in plan mode, whatever the bridge env says; otherwise the same profile', async () => {
  const home = makeTempDir();
  try {
    const plan = await loadProfile(join(ROOT, 'profiles/claude-code-plan/profile.yaml'));
    const base = await loadProfile(join(ROOT, 'profiles/claude-code/profile.yaml'));
    assert.equal(plan.name, 'claude-code-plan');
    assert.equal(plan.permission, true);
    const { CLAUDE_PERMISSION_MODE: mode, ...planEnv } = plan.env;
    const { CLAUDE_PERMISSION_MODE: _baseMode, ...baseEnv } = base.env;
    assert.equal(mode, 'plan');
    assert.deepEqual(planEnv, baseEnv, 'the same knobs as claude-code');
    assert.deepEqual(plan.envAllowlist, base.envAllowlist!.filter((v) => v !== 'CLAUDE_PERMISSION_MODE'));
    assert.deepEqual(plan.sandbox, base.sandbox);
    const result = await run(plan, { message: 'run the tests' }, {}, { env: { ...bridgeEnv('claude', home), CLAUDE_PERMISSION_MODE: 'bypassPermissions' }, timeoutMs: 20_000 });
    assert.equal(result.error, null);
    const argv: string[] = fact(fakeLog(home), (f) => f.argv).argv;
    assert.deepEqual(argv.slice(argv.indexOf('--permission-prompt-tool'), argv.indexOf('--permission-prompt-tool') + 4), ['--permission-prompt-tool', 'stdio', '--permission-mode', 'plan']);
  } finally {
    removeDir(home);
  }
});

test('profiles/codex/profile.yaml through run(): resume id in, streamed items and the session id out', async () => {
  const home = makeTempDir();
  try {
    const profile = await loadProfile(join(ROOT, 'profiles/codex/profile.yaml'));
    const result = await run(profile, { message: 'fix it', sessionId: 'thread-5' }, {}, { env: bridgeEnv('codex', home), timeoutMs: 20_000 });
    assert.equal(result.error, null);
    assert.equal(result.sessionId, 'thread-5');
    assert.deepEqual(result.partials.filter((p) => p.role !== 'thinking').map((p) => p.text), ['The tests pass.', '\n\nUpdated src/x.ts.']);
    assert.deepEqual(result.usage, { input_tokens: 24763, output_tokens: 122, total_tokens: 24885, cache_read_input_tokens: 24448 });
    assert.deepEqual(fact(fakeLog(home), (f) => f.argv).argv.slice(-4), ['resume', '--', 'thread-5', '-']);
  } finally {
    removeDir(home);
  }
});

test('profiles/gemini-cli/profile.yaml through run(): a failed CLI turn is an error that keeps the session id', async () => {
  const home = makeTempDir();
  try {
    const profile = await loadProfile(join(ROOT, 'profiles/gemini-cli/profile.yaml'));
    const result = await run(profile, { message: '[quota] hi' }, {}, { env: bridgeEnv('gemini', home), timeoutMs: 20_000 });
    assert.equal(result.error, 'You have exhausted your daily quota on this model.');
    assert.equal(result.exitCode, 1);
    assert.equal(result.sessionId, '6c1d2e3f-0000-4000-8000-00000000a11e');
  } finally {
    removeDir(home);
  }
});

test('a hub-layout profile (agentproc: block, executor: claude-code) runs our wrapper unchanged', async () => {
  const home = makeTempDir();
  try {
    const profile = await loadProfile(join(ROOT, 'test/fixtures/hub/claude-code/profile.yaml'));
    assert.equal(profile.name, 'claude-code');
    assert.equal(profile.executor, 'claude-code');
    const result = await run(profile, { message: 'run the tests' }, {}, { env: bridgeEnv('claude', home), timeoutMs: 20_000 });
    assert.equal(result.error, null);
    assert.equal(result.exitCode, 0);
    assert.equal(result.sessionId, 'c1a0de00-0000-4000-8000-000000000001');
    assert.deepEqual(result.partials.filter((p) => p.role !== 'thinking').map((p) => p.text), ['Run', 'ning the tests.', '\n\nAll 3 tests pass.']);
    const argv: string[] = fact(fakeLog(home), (f) => f.argv).argv;
    assert.ok(argv.includes('--dangerously-skip-permissions'), 'hub default permission false: unattended');
    assert.deepEqual(argv.slice(argv.indexOf('--model'), argv.indexOf('--model') + 2), ['--model', 'sonnet']);
  } finally {
    removeDir(home);
  }
});
