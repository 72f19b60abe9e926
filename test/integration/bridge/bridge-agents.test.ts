/**
 * The bridge core with REAL agent processes (test/fixtures/bridge-agents) through the real
 * runner, the real delivery layer and a recording Surface; profiles are real YAML files.
 */
import type { BridgeConfig } from '../../../src/config/types.js';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createBridge, type CoreBridge } from '../../../src/bridge/index.js';
import { silentLogger } from '../../../src/log.js';
import { conversationKey } from '../../../src/state/index.js';
import { createRecordingSurface, type RecordingSurface } from '../../fakes/recording-surface.js';
import { AGENTS, ANA, BOB, click, conv, makeConfig, makeMsg, waitFor } from '../../unit/bridge/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-bridge-agents-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Write a profile YAML running one fixture agent; returns its path. */
function profileFile(script: string, extra = ''): string {
  const file = join(dir, `${script}.${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `command: ${JSON.stringify(process.execPath)}\nargs: [${JSON.stringify(join(AGENTS, script))}]\ntimeout_secs: 20\nkill_grace_secs: 1\n${extra}`);
  return file;
}

function start(defaultProfile: string, over: Partial<BridgeConfig> = {}): { bridge: CoreBridge; surface: RecordingSurface } {
  const surface = createRecordingSurface();
  const bridge = createBridge({ config: makeConfig({ defaultProfile, dataDir: join(dir, 'data-default'), ...over }), logger: silentLogger });
  bridge.attach(surface);
  return { bridge, surface };
}

const finished = (bridge: CoreBridge, n: number) =>
  waitFor(() => Object.values(bridge.stats().turnsByOutcome).reduce((a, b) => a + b, 0) >= n, `${n} finished turns`, 20_000);

describe('bridge with real agents', () => {
  it('echo: streams and lands the exact final text; thinking stays out of the answer', async () => {
    const { bridge, surface } = start(profileFile('echo.mjs'), { dataDir: join(dir, 'echo') });
    await bridge.handleMessage(makeMsg({ text: 'ping **bold**' }));
    await finished(bridge, 1);
    const [reply] = surface.messages();
    assert.equal(bridge.stats().turnsByOutcome.success, 1);
    assert.match(reply!.content.text, /^echo: ping \*\*bold\*\*/);
    assert.doesNotMatch(reply!.content.text, /thinking about it/);
    await bridge.shutdown(2000);
  });

  it('session: minted on the first turn, resumed on the next, also after a restart of the bridge and store', async () => {
    const profile = profileFile('session.mjs');
    const dataDir = join(dir, 'sessions');
    const first = start(profile, { dataDir });
    await first.bridge.handleMessage(makeMsg({ text: 'one', conversation: conv('C1', 't1') }));
    await finished(first.bridge, 1);
    const minted = /^new (sess-\S+)/.exec(first.surface.messages()[0]!.content.text)?.[1];
    assert.ok(minted, first.surface.messages()[0]!.content.text);
    await first.bridge.handleMessage(makeMsg({ text: 'two', conversation: conv('C1', 't1') }));
    await finished(first.bridge, 2);
    assert.match(first.surface.messages()[1]!.content.text, new RegExp(`^resumed ${minted}`));
    await first.bridge.shutdown(2000);

    const second = start(profile, { dataDir });
    await second.bridge.handleMessage(makeMsg({ text: 'three', conversation: conv('C1', 't1') }));
    await second.bridge.handleMessage(makeMsg({ text: 'other thread', conversation: conv('C1', 't2') }));
    await finished(second.bridge, 2);
    const texts = second.surface.messages().map((m) => m.content.text);
    assert.ok(texts.some((t) => t.startsWith(`resumed ${minted}`)), texts.join(' | '));
    assert.ok(texts.some((t) => /^new sess-/.test(t) && !t.includes(minted)), 'another thread is another session');
    await second.bridge.handleMessage(makeMsg({ text: 'new', conversation: conv('C1', 't1') }));
    await second.bridge.handleMessage(makeMsg({ text: 'four', conversation: conv('C1', 't1') }));
    await finished(second.bridge, 3);
    assert.match(second.surface.messagesIn(conv('C1', 't1')).at(-1)!.content.text, /^new sess-/);
    await second.bridge.shutdown(2000);
  });

  it('failing: the error shows after the partials and the session is still saved', async () => {
    const { bridge, surface } = start(profileFile('failing.mjs'), { dataDir: join(dir, 'failing') });
    await bridge.handleMessage(makeMsg({ source: { id: 'src', conversation: conv() } }));
    await finished(bridge, 1);
    assert.equal(bridge.stats().turnsByOutcome.error, 1);
    assert.match(surface.messages()[0]!.content.text, /^partial before failing[\s\S]*agent exploded/);
    assert.equal((await bridge.state.sessions.get(conversationKey('test', conv())))?.session_id, 'failed-session');
    assert.deepEqual(surface.reactions.map((r) => r.state), ['working', 'failure']);
    await bridge.shutdown(2000);
  });

  it('permission: the author allows, a stranger is refused, the agent hears the decision', async () => {
    const { bridge, surface } = start(profileFile('ask.mjs', 'permission: true\n'), { dataDir: join(dir, 'ask') });
    await bridge.handleMessage(makeMsg({ text: 'rm -rf build' }));
    await waitFor(() => surface.prompts().length === 1, 'prompt');
    const view = surface.prompts()[0]!.view;
    assert.equal(view.toolName, 'Bash');
    assert.equal(view.inputPreview, 'rm -rf build');
    const stranger = click('allow', view.promptId, BOB);
    await bridge.handleAction(stranger);
    assert.match(stranger.told[0]!, /Only @ana/);
    await bridge.handleAction(click('allow', view.promptId, ANA));
    await finished(bridge, 1);
    assert.match(surface.messages()[0]!.content.text, /^ran it/);
    await waitFor(() => surface.prompts()[0]!.view.state === 'allowed', 'prompt shows allowed');
    assert.equal(surface.prompts()[0]!.view.decidedBy?.id, ANA.id);
    await bridge.shutdown(2000);
  });

  it('permission: the answer so far stays above the prompt; what follows continues below it', async () => {
    // the Slack suite's agent: "ask" streams a partial, asks permission, then streams the outcome
    const profile = join(dir, 'ask-order.yaml');
    writeFileSync(profile, `command: ${JSON.stringify(process.execPath)}\nargs: [${JSON.stringify(join(AGENTS, '../slack-agents/agent.mjs'))}]\ntimeout_secs: 20\npermission: true\n`);
    const { bridge, surface } = start(profile, { dataDir: join(dir, 'ask-order') });
    await bridge.handleMessage(makeMsg({ text: 'ask' }));
    await waitFor(() => surface.prompts().length === 1, 'prompt');
    await bridge.handleAction(click('allow', surface.prompts()[0]!.view.promptId, ANA));
    await finished(bridge, 1);
    const order = surface.calls.filter((c) => c.ok && (c.op === 'post' || c.op === 'postPrompt')).map((c) => (c.op === 'postPrompt' ? 'prompt' : c.ref!.id));
    assert.equal(order.length, 3, JSON.stringify(order));
    assert.equal(order[1], 'prompt');
    assert.deepEqual(surface.contentOf(order[0]!), { text: 'Let me run a command. ' }, 'frozen above the prompt: no status, no Stop');
    assert.deepEqual(surface.contentOf(order[2]!), { text: 'allowed: echo ok > f.txt', tone: 'success' });
    assert.ok(surface.message(order[2]!).history[0]!.stopActionId, 'the new message carries the Stop control while running');
    await bridge.shutdown(2000);
  });

  it('permission: a short timeout denies and the prompt shows "timed out"', async () => {
    const { bridge, surface } = start(profileFile('ask.mjs', 'permission: true\n'), { dataDir: join(dir, 'ask2'), permissionTimeoutSecs: 0.05 });
    await bridge.handleMessage(makeMsg({ text: 'ls' }));
    await finished(bridge, 1);
    assert.match(surface.messages()[0]!.content.text, /^not allowed: No one answered/);
    await waitFor(() => surface.prompts()[0]!.view.state === 'timeout', 'prompt shows timeout');
    await bridge.shutdown(2000);
  });

  it('stop kills a slow agent; shutdown interrupts another one', async () => {
    const { bridge, surface } = start(profileFile('slow.mjs'), { dataDir: join(dir, 'slow') });
    await bridge.handleMessage(makeMsg({ conversation: conv('C1') }));
    await bridge.handleMessage(makeMsg({ conversation: conv('C2') }));
    await waitFor(() => surface.messages().length === 2 && surface.messages().every((m) => m.content.text.includes('working on it')), 'both agents running');
    const stopId = surface.messagesIn(conv('C1'))[0]!.content.stopActionId!;
    await bridge.handleAction(click('stop', stopId, ANA));
    await finished(bridge, 1);
    assert.match(surface.messagesIn(conv('C1'))[0]!.content.text, /^working on it[\s\S]*stopped by @ana/);
    assert.equal((await bridge.state.sessions.get(conversationKey('test', conv('C1'))))?.session_id, 'slow-session', 'a stopped turn keeps its session');
    await bridge.shutdown(5000);
    assert.match(surface.messagesIn(conv('C2'))[0]!.content.text, /interrupted: the bridge restarted/);
    assert.deepEqual(bridge.stats().turnsByOutcome, { stopped: 1, interrupted: 1 });
    assert.equal(bridge.stats().activeAgents, 0);
  });
});

describe('bridge with real agents: shutdown during a permission prompt', () => {
  it('expires the prompt and finalizes the reply as interrupted', async () => {
    const { bridge, surface } = start(profileFile('ask.mjs', 'permission: true\n'), { dataDir: join(dir, 'ask3') });
    await bridge.handleMessage(makeMsg({ text: 'make deploy' }));
    await waitFor(() => surface.prompts().length === 1, 'prompt');
    await bridge.shutdown(5000);
    const prompt = surface.prompts()[0]!.view;
    assert.equal(prompt.state, 'expired');
    assert.match(prompt.note!, /bridge restarted/);
    assert.match(surface.messages()[0]!.content.text, /interrupted: the bridge restarted/);
    const late = click('allow', prompt.promptId, ANA);
    await bridge.handleAction(late);
    assert.match(late.told[0]!, /expired/);
  });
});
