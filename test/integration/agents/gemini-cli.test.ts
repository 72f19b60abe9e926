import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWrapper, runWithoutCli, runStoppedBy, turn, argvOf, stdinOf, removeDir, ROOT } from './wrapper-harness.js';
// @ts-expect-error plain .mjs profile module without types
import { geminiAcceptsSystemFile } from '../../../profiles/gemini-cli/system-defaults.mjs';

const SID = '6c1d2e3f-0000-4000-8000-00000000a11e';

test('gemini: deltas stream, tool calls are thinking lines, stats become usage; prompt on stdin; trust env set', async () => {
  const r = await runWrapper({ wrapper: 'gemini-cli', turn: turn('-p list the files') });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.events, [
    { type: 'partial', text: 'I will list ', session_id: SID },
    { type: 'partial', text: 'the files.', session_id: SID },
    { type: 'partial', text: 'Running shell: ls -la\n', role: 'thinking', session_id: SID },
    { type: 'partial', text: 'Reading missing.md\n', role: 'thinking', session_id: SID },
    { type: 'partial', text: 'read_file failed: File not found\n', role: 'thinking', session_id: SID },
    { type: 'partial', text: '\n\nThere is one file: README.md.', session_id: SID },
    { type: 'result', text: 'I will list the files.\n\nThere is one file: README.md.', session_id: SID,
      usage: { input_tokens: 1100, output_tokens: 134, total_tokens: 1234, cache_read_input_tokens: 800, duration_ms: 5120, tool_calls: 2 } },
  ]);
  assert.deepEqual(argvOf(r.log), ['--output-format', 'stream-json', '--yolo']);
  assert.equal(r.log[0].trust, 'true');
  assert.deepEqual(stdinOf(r.log), ['-p list the files']);
});

const asRoot = process.getuid?.() === 0;

test('gemini: as root the profile\'s system-defaults.json is passed (gemini reads system files only when root-owned); a base URL with an API key selects gemini-api-key auth', async () => {
  const plain = await runWrapper({ wrapper: 'gemini-cli', turn: turn('hi') });
  assert.equal(plain.code, 0, plain.stderr);
  const own = join(ROOT, 'profiles/gemini-cli/system-defaults.json');
  if (!asRoot) assert.equal(plain.log[0]!.systemDefaults, null, 'gemini would skip a file not owned by root');
  else if (geminiAcceptsSystemFile(own)) assert.equal(plain.log[0]!.systemDefaults, own);
  // A clone in a folder gemini distrusts (e.g. under /tmp): never the file gemini would ignore
  // (the private copy is the next test's).
  else assert.notEqual(plain.log[0]!.systemDefaults, own, 'not a file gemini would skip');
  assert.equal(plain.log[0]!.authType, null, 'no auth type chosen without a base URL');
  const gateway = await runWrapper({ wrapper: 'gemini-cli', turn: turn('hi'), env: { GOOGLE_GEMINI_BASE_URL: 'http://gateway.internal:4000', GEMINI_API_KEY: 'k' } });
  assert.equal(gateway.log[0]!.authType, 'gemini-api-key');
  const chosen = await runWrapper({ wrapper: 'gemini-cli', turn: turn('hi'), env: { GEMINI_AUTH_TYPE: 'vertex-ai', GEMINI_CLI_SYSTEM_DEFAULTS_PATH: '/etc/mine.json' } });
  assert.equal(chosen.log[0]!.authType, 'vertex-ai');
  assert.equal(chosen.log[0]!.systemDefaults, '/etc/mine.json');
});

// A HOME gemini trusts for system files: not under /tmp (world-writable), e.g. in node_modules/.cache.
const trustedParent = join(ROOT, 'node_modules', '.cache');
mkdirSync(trustedParent, { recursive: true });
const noTrustedHome = !asRoot ? 'gemini reads system files only as root'
  : !geminiAcceptsSystemFile(trustedParent) ? `${trustedParent} is not root-owned and private`
  // The premise: a folder under the temp dir is one gemini distrusts (a world-writable /tmp).
  : geminiAcceptsSystemFile(tmpdir()) && `${tmpdir()} is root-owned and private here, so gemini trusts it`;

test('gemini: a profile in a folder gemini distrusts (under /tmp) hands gemini a private copy of its defaults', { skip: noTrustedHome }, async () => {
  const copy = mkdtempSync(join(tmpdir(), 'tb-gemini-profiles-'));
  const home = mkdtempSync(join(trustedParent, 'tb-gemini-home-'));
  try {
    cpSync(join(ROOT, 'profiles/gemini-cli'), join(copy, 'gemini-cli'), { recursive: true });
    cpSync(join(ROOT, 'profiles/lib'), join(copy, 'lib'), { recursive: true });
    const r = await runWrapper({ wrapper: 'gemini-cli', profilesDir: copy, dir: home, turn: turn('hi') });
    assert.equal(r.code, 0, r.stderr);
    const used = join(home, '.cache/turnbridge/gemini-cli/system-defaults.json');
    assert.equal(r.log[0]!.systemDefaults, used);
    assert.equal(readFileSync(used, 'utf8'), readFileSync(join(ROOT, 'profiles/gemini-cli/system-defaults.json'), 'utf8'));
  } finally {
    removeDir(copy);
    removeDir(home);
  }
});

test('gemini: a retry reported on stderr is a thinking line', async () => {
  const r = await runWrapper({ wrapper: 'gemini-cli', turn: turn('[retry] hi') });
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [
    { type: 'partial', text: 'API error 503 (attempt 1), retrying…\n', role: 'thinking', session_id: SID },
    { type: 'error', message: 'gemini exited with code 1 without a result: Attempt 1 failed with status 503. Retrying with backoff... _ApiError: {"error":{"code":503,"message":"The model is overloaded."}}\nAttempt 2 failed: The model is overloaded.. Max attempts reached', session_id: SID },
  ]);
});

test('gemini: resume passes --resume and stamps the inbound id; model and approval mode from env', async () => {
  const r = await runWrapper({ wrapper: 'gemini-cli', turn: turn('more', { session_id: 'g-sess-9' }), env: { GEMINI_MODEL: 'gemini-2.5-flash', GEMINI_APPROVAL_MODE: 'auto_edit' } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(argvOf(r.log), ['--output-format', 'stream-json', '--approval-mode', 'auto_edit', '--model', 'gemini-2.5-flash', '--resume=g-sess-9']);
  for (const ev of r.events) assert.equal(ev.session_id, 'g-sess-9');
});

test('gemini: an approval mode this version does not know is reported, not swallowed', async () => {
  const r = await runWrapper({ wrapper: 'gemini-cli', turn: turn('hi'), env: { GEMINI_APPROVAL_MODE: 'plan' } });
  assert.equal(r.code, 1);
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0].type, 'error');
  assert.match(String(r.events[0].message), /^gemini rejected its command line \(.*Argument: approval-mode, Given: "plan".*\)\. This gemini version may not support --approval-mode: check GEMINI_APPROVAL_MODE/);
});

test('gemini: with the trust override off, the untrusted-folder refusal is explained', async () => {
  const r = await runWrapper({ wrapper: 'gemini-cli', turn: turn('hi'), env: { GEMINI_TRUST_WORKSPACE: '0' } });
  assert.equal(r.code, 1);
  assert.equal(r.log[0].trust, null);
  assert.deepEqual(r.events, [{ type: 'error', message: 'gemini refused to run in an untrusted folder: keep GEMINI_TRUST_WORKSPACE on (default) or trust the folder in interactive gemini' }]);
});

test('gemini: an error result is an error event with the session id', async () => {
  const r = await runWrapper({ wrapper: 'gemini-cli', turn: turn('[quota] hi') });
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [{ type: 'error', message: 'You have exhausted your daily quota on this model.', session_id: SID,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, cache_read_input_tokens: 0, duration_ms: 800, tool_calls: 0 } }]);
});

test('gemini: a crash without a result is an error, never a success', async () => {
  const r = await runWrapper({ wrapper: 'gemini-cli', turn: turn('[crash] hi') });
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [
    { type: 'partial', text: 'Let me', session_id: SID },
    { type: 'error', message: 'gemini exited with code 1 without a result: Error: fetch failed\n    at node:internal/deps/undici', session_id: SID },
  ]);
});

test('gemini: missing CLI gives the install hint', async () => {
  const r = await runWithoutCli('gemini-cli');
  assert.equal(r.code, 1);
  assert.deepEqual(r.events, [{ type: 'error', message: 'gemini not found: install with npm i -g @google/gemini-cli' }]);
});

test('gemini: SIGTERM is forwarded and ends in an error event, exit 143', async () => {
  const r = await runStoppedBy('gemini-cli', 'SIGTERM');
  assert.equal(r.code, 143);
  assert.deepEqual(r.events.at(-1), { type: 'error', message: 'gemini was stopped (SIGTERM)', session_id: SID });
  assert.ok(r.log.some((f) => f.signal === 'SIGTERM'));
});
