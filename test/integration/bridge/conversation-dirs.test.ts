/**
 * Each conversation's own workspace and HOME, with real agent processes through the real runner
 * (test/fixtures/bridge-agents/places.mjs): made 0700 before the turn, kept between turns, the
 * agent's cwd and HOME; its files downloaded (the real downloader, a loopback server) into its
 * HOME and removed after the turn. Tried as the agent would: names that try to leave the root,
 * a link where a conversation's directory should be, a link in place of its files' directory.
 */
import type { BridgeConfig } from '../../../src/config/types.js';
import { strict as assert } from 'node:assert';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createBridge, type CoreBridge } from '../../../src/bridge/index.js';
import type { InboundMessage } from '../../../src/bridge/types.js';
import { conversationDirName, conversationPlaces } from '../../../src/bridge/turns/conversation-dirs.js';
import { conversationKey } from '../../../src/state/index.js';
import { silentLogger } from '../../../src/log.js';
import { downloadAttachments } from '../../../src/platforms/attachments.js';
import { createRecordingSurface, type RecordingSurface } from '../../fakes/recording-surface.js';
import { AGENTS, conv, makeConfig, makeMsg, waitFor } from '../../unit/bridge/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-conv-dirs-'));
chmodSync(dir, 0o755); // a deploy directory the agent's user may pass through
after(() => rmSync(dir, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;
const mode = (p: string) => statSync(p).mode & 0o777;

let files: Server;
let filesUrl = '';
before(async () => {
  files = createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`bytes of ${req.url}`);
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  filesUrl = `http://127.0.0.1:${(files.address() as { port: number }).port}`;
});
after(() => files.close());

function profileFile(extra = ''): string {
  const file = join(dir, `places.${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `command: ${JSON.stringify(process.execPath)}\nargs: [${JSON.stringify(join(AGENTS, 'places.mjs'))}]\ntimeout_secs: 20\nkill_grace_secs: 1\n${extra}`);
  return file;
}

function start(name: string, over: Partial<BridgeConfig> = {}, extra = ''): { bridge: CoreBridge; surface: RecordingSurface; config: BridgeConfig } {
  const root = join(dir, name);
  mkdirSync(root);
  const config = makeConfig({ defaultProfile: profileFile(extra), dataDir: join(root, 'data'), ...over });
  config.agent = { ...config.agent, workspace: join(root, 'workspaces'), ...over.agent };
  const surface = createRecordingSurface();
  const bridge = createBridge({ config, logger: silentLogger });
  bridge.attach(surface);
  return { bridge, surface, config };
}

interface Report {
  cwd: string; home: string; marks: Record<string, string>; before: string | null;
  attachments: Array<{ path: string; text: string; overwrite: string }>;
  read: Record<string, string>; write: Record<string, string>; swapped?: string;
}

const finishedTurns = (bridge: CoreBridge) => Object.values(bridge.stats().turnsByOutcome).reduce((x, y) => x + y, 0);

/** Send one message and wait for its turn to end: the agent's report. */
async function turn(bridge: CoreBridge, surface: RecordingSurface, msg: Partial<InboundMessage>): Promise<Report> {
  const n = surface.messages().length;
  const done = finishedTurns(bridge);
  await bridge.handleMessage(makeMsg(msg));
  await waitFor(() => finishedTurns(bridge) > done, 'the turn ended', 20_000);
  const text = surface.messages()[n]?.content.text ?? '';
  assert.match(text, /^\{/, text);
  return JSON.parse(text.split('\n')[0]!) as Report;
}

/** A download as the platforms make it: the real downloader, into the directory the bridge names. */
function download(...names: string[]): InboundMessage['download'] {
  return { count: names.length, fetch: (into) => downloadAttachments(names.map((n) => ({ url: `${filesUrl}/${n}`, filename: n })), { ...(into ? { dir: into } : {}) }) };
}

describe('conversation directory names', () => {
  it('stable, distinct for keys that differ only in the characters a file name cannot hold, and never outside the root', () => {
    const keys = ['slack:T1:C1:1700.1', 'slack:T1:C1:1700_1', 'slack:T1:C1:1700%2E1', '../../etc', '..', '.', '', 'a/b', 'a\\b', '%2E%2E%2Fetc', 'x'.repeat(500), 'local::tab-1:'];
    const names = keys.map(conversationDirName);
    assert.equal(new Set(names).size, keys.length, 'no two keys share a directory');
    assert.deepEqual(keys.map(conversationDirName), names, 'stable');
    for (const n of names) {
      assert.match(n, /^[A-Za-z0-9][A-Za-z0-9._-]*-[0-9a-f]{16}$/, n);
      assert.ok(n.length <= 81, n);
      assert.equal(relative('/root', join('/root', n)), n, `${n} stays one level under the root`);
    }
    assert.equal(conversationDirName('slack:T1:C1:1700.1'), `slack_T1_C1_1700.1-${conversationDirName('slack:T1:C1:1700.1').slice(-16)}`, 'readable for the operator');
  });
});

describe('one workspace and one HOME per conversation (real agents)', () => {
  it('two conversations: each its own 0700 cwd and HOME, made before the first turn and kept between turns', async () => {
    const { bridge, surface, config } = start('two');
    const places = conversationPlaces(config);
    const a1 = await turn(bridge, surface, { text: 'A one', conversation: conv('CA') });
    const b1 = await turn(bridge, surface, { text: 'B one', conversation: conv('CB') });
    const a2 = await turn(bridge, surface, { text: 'A two', conversation: conv('CA') });
    const nameA = conversationDirName(conversationKey('test', conv('CA')));
    assert.equal(a1.cwd, join(places.workspaces, nameA));
    assert.equal(a1.home, join(places.homes, nameA));
    assert.deepEqual(a1.marks, { cwd: 'ok', home: 'ok' });
    assert.notEqual(b1.cwd, a1.cwd);
    assert.notEqual(b1.home, a1.home);
    assert.equal(dirname(b1.home), places.homes);
    assert.equal(a2.cwd, a1.cwd);
    assert.equal(a2.home, a1.home);
    assert.equal(a1.before, null);
    assert.equal(a2.before, 'A one', 'what the first turn left in HOME is there for the second (CLI session files)');
    assert.equal(b1.before, null, 'B does not start in A\'s HOME');
    for (const d of [a1.cwd, a1.home, b1.cwd, b1.home]) assert.equal(mode(d), 0o700, d);
    for (const d of [places.workspaces, places.homes, config.dataDir]) assert.equal(mode(d), 0o700, d);
    assert.equal(readFileSync(join(a1.cwd, 'mark'), 'utf8'), 'A two');
    await bridge.shutdown(2000);
  });

  it('a profile\'s cwd still wins for the workspace; the HOME is the conversation\'s', async () => {
    const project = join(dir, 'project');
    mkdirSync(project);
    const { bridge, surface, config } = start('profile-cwd', {}, `cwd: ${JSON.stringify(project)}\n`);
    const r = await turn(bridge, surface, { text: 'x', conversation: conv('CP') });
    assert.equal(r.cwd, project);
    assert.equal(dirname(r.home), conversationPlaces(config).homes);
    await bridge.shutdown(2000);
  });

  it('its files are downloaded into its HOME (not a shared temp dir), readable there, and gone after the turn', async () => {
    const { bridge, surface, config } = start('files');
    const r = await turn(bridge, surface, { text: '{}', conversation: conv('CF'), download: download('notes.txt', 'b.txt') });
    assert.equal(r.attachments.length, 2);
    for (const a of r.attachments) assert.equal(relative(r.home, a.path).split('/').length, 2, `${a.path} is in a directory of ${r.home}`);
    assert.deepEqual(r.attachments.map((a) => a.text), ['bytes of /notes.txt', 'bytes of /b.txt']);
    const staging = join(conversationPlaces(config).homes, '.incoming');
    await waitFor(() => readdirSync(r.home).every((n) => !n.startsWith('turnbridge-att-')) && readdirSync(staging).length === 0, 'the files are removed after the turn, nothing left in staging');
    await bridge.shutdown(2000);
  });

  it('an agent that puts a link in place of its files\' directory: the cleanup removes the link, the linked directory is untouched', async () => {
    const victim = join(dir, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'precious'), 'keep me');
    const { bridge, surface } = start('swap');
    const r = await turn(bridge, surface, { text: JSON.stringify({ swapTo: victim }), conversation: conv('CS'), download: download('x.txt') });
    assert.equal(r.swapped, 'ok');
    const placed = dirname(r.attachments[0]!.path);
    await waitFor(() => { try { lstatSync(placed); return false; } catch { return true; } }, 'the link is gone');
    assert.equal(readFileSync(join(victim, 'precious'), 'utf8'), 'keep me');
    await bridge.shutdown(2000);
  });

  it('a link where a conversation\'s workspace should be: the turn fails with a reply, nothing is written through it', async () => {
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    const { bridge, surface, config } = start('link');
    const places = conversationPlaces(config);
    mkdirSync(places.workspaces, { recursive: true });
    symlinkSync(elsewhere, join(places.workspaces, conversationDirName(conversationKey('test', conv('CL')))));
    await bridge.handleMessage(makeMsg({ text: 'x', conversation: conv('CL') }));
    await waitFor(() => (bridge.stats().turnsByOutcome.error ?? 0) === 1, 'the turn failed');
    assert.match(surface.messages()[0]!.content.text, /could not prepare this conversation's workspace/);
    assert.deepEqual(readdirSync(elsewhere), []);
    await bridge.shutdown(2000);
  });

  it('run_as: the places are the agent user\'s, the roots and the data dir only passable (0710, its group); its files readable, not writable; the state unreadable', { skip: !isRoot && 'needs root (run_as)' }, async () => {
    const runAs = { uid: 65534, gid: 65534 };
    const { bridge, surface, config } = start('run-as', { agent: { ...makeConfig().agent, runAs } });
    const places = conversationPlaces(config);
    const state = join(config.dataDir, 'turnbridge.sqlite');
    const r = await turn(bridge, surface, {
      text: JSON.stringify({ read: [places.workspaces, places.homes, config.dataDir, state], write: [join(config.dataDir, 'planted'), join(places.workspaces, 'planted')] }),
      conversation: conv('CR'),
      download: download('r.txt'),
    });
    assert.deepEqual(r.marks, { cwd: 'ok', home: 'ok' });
    for (const d of [r.cwd, r.home]) {
      assert.equal(statSync(d).uid, 65534, d);
      assert.equal(mode(d), 0o700, d);
    }
    for (const d of [places.workspaces, places.homes, config.dataDir]) {
      assert.equal(mode(d), 0o710, d);
      assert.equal(statSync(d).gid, 65534, d);
    }
    assert.equal(r.attachments[0]!.text, 'bytes of /r.txt');
    assert.equal(r.attachments[0]!.overwrite, 'EACCES', 'its files are the bridge\'s: read, not changed');
    assert.deepEqual(r.read, Object.fromEntries([places.workspaces, places.homes, config.dataDir, state].map((p) => [p, 'EACCES'])));
    assert.deepEqual(Object.values(r.write), ['EACCES', 'EACCES']);
    await bridge.shutdown(2000);
  });
});
