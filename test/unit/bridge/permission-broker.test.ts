import { strict as assert } from 'node:assert';
import { describe, it, mock } from 'node:test';
import { createPermissionBroker } from '../../../src/bridge/index.js';
import { createDelivery } from '../../../src/delivery/index.js';
import { TurnbridgeError } from '../../../src/errors.js';
import type { PermissionRequest } from '../../../src/protocol/types.js';
import { silentLogger } from '../../../src/log.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { ANA, BOB, BOSS, click, conv, waitFor } from './helpers.js';

const REQ: PermissionRequest = { requestId: 'r1', toolName: 'Bash', description: 'Write a file', input: { command: 'echo ok > f.txt' } };

function setup(approvers: string[] = ['U_BOSS'], rememberSettled?: number) {
  let n = 0;
  const surface = createRecordingSurface();
  const delivery = createDelivery(surface);
  const broker = createPermissionBroker({ approvers, logger: silentLogger, idFactory: () => `p${++n}`, now: () => 1_000, rememberSettled });
  const ask = (opts: { timeoutMs?: number; signal?: AbortSignal; request?: PermissionRequest; turnId?: string } = {}) =>
    broker.request({
      turnId: opts.turnId ?? 't1',
      surface,
      post: (render) => delivery.prompt(conv(), render),
      conversation: conv(),
      author: ANA,
      request: opts.request ?? REQ,
      signal: opts.signal ?? new AbortController().signal,
      timeoutMs: opts.timeoutMs ?? 60_000,
      log: silentLogger,
    });
  const prompt = () => surface.prompts()[0]!;
  const posted = () => waitFor(() => surface.prompts().length > 0, 'prompt posted');
  const updated = (state: string) => waitFor(() => surface.prompts()[0]?.view.state === state, `prompt ${state}`);
  return { surface, delivery, broker, ask, prompt, posted, updated };
}

describe('permission broker', () => {
  it('shows the tool, description and the command, and the author allows it', async () => {
    const { broker, ask, prompt, posted, updated } = setup();
    const decision = ask();
    await posted();
    assert.deepEqual(prompt().view, {
      promptId: 'p1', toolName: 'Bash', description: 'Write a file', inputPreview: 'echo ok > f.txt', state: 'pending',
      editable: true, deciders: { author: ANA, users: ['U_BOSS'], groups: [] }, expiresAt: 61_000,
    });
    assert.equal(broker.open, 1);
    const c = click('allow', 'p1', ANA);
    await broker.handleAction(c);
    assert.deepEqual(await decision, { behavior: 'allow' });
    assert.deepEqual(c.told, []);
    await updated('allowed');
    assert.deepEqual(prompt().view.decidedBy, ANA);
    assert.equal(broker.open, 0);
  });

  it('posts through the live reply: after its message landed, and the reply continues below the prompt', async () => {
    const { surface, delivery, broker } = setup();
    const reply = delivery.open(conv());
    reply.append({ text: 'Let me write the file.' });
    const decision = broker.request({
      turnId: 't1', surface, conversation: conv(), author: ANA, request: REQ, signal: new AbortController().signal, timeoutMs: 60_000, log: silentLogger,
      post: (render) => reply.postPrompt(render),
    });
    const posts = () => surface.calls.filter((c) => c.ok && (c.op === 'post' || c.op === 'postPrompt')).map((c) => c.op);
    await waitFor(() => posts().length === 3, 'the prompt and the part below it');
    assert.deepEqual(posts(), ['post', 'postPrompt', 'post'], 'reply message, the prompt, then the reply continues below');
    await broker.handleAction(click('allow', 'p1', ANA));
    assert.deepEqual(await decision, { behavior: 'allow' });
    await reply.finish({ kind: 'success', reply: 'done' });
  });

  it('remembers the last settled prompts for "already decided", and never forgets an open one', async () => {
    const { broker, ask, surface } = setup(['U_BOSS'], 2);
    const first = ask({ turnId: 'open' });
    const decided = [ask(), ask(), ask()];
    await waitFor(() => surface.prompts().length === 4, 'four prompts posted');
    for (const id of ['p2', 'p3', 'p4']) await broker.handleAction(click('allow', id, ANA));
    await Promise.all(decided);
    const told = async (id: string) => {
      const c = click('allow', id, ANA);
      await broker.handleAction(c);
      return c.told.join(' ');
    };
    assert.match(await told('p2'), /has expired/, 'the oldest settled prompt is forgotten past the bound');
    assert.match(await told('p3'), /already allowed/);
    assert.match(await told('p4'), /already allowed/);
    assert.equal(broker.holds('p1'), true, 'the open prompt, older than all of them, is still held');
    await broker.handleAction(click('allow', 'p1', ANA));
    assert.deepEqual(await first, { behavior: 'allow' });
  });

  it('an approver denies; the agent gets a reason', async () => {
    const { broker, ask, posted, updated, prompt } = setup();
    const decision = ask();
    await posted();
    await broker.handleAction(click('deny', 'p1', BOSS));
    assert.deepEqual(await decision, { behavior: 'deny', message: 'Denied by @boss.' });
    await updated('denied');
    assert.equal(prompt().view.decidedBy?.id, 'U_BOSS');
  });

  it('approvers match by role id too', async () => {
    const { broker, ask, posted } = setup(['ROLE_OPS']);
    const decision = ask();
    await posted();
    await broker.handleAction(click('allow', 'p1', { id: 'U_X', roles: ['ROLE_OPS'] }));
    assert.equal((await decision).behavior, 'allow');
  });

  it('someone else is told privately and nothing is decided', async () => {
    const { broker, ask, posted, prompt } = setup();
    let settled = false;
    const decision = ask().then((d) => ((settled = true), d));
    await posted();
    const c = click('allow', 'p1', BOB);
    await broker.handleAction(c);
    assert.deepEqual(c.told, ['Only @ana or an approver can answer this request (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).']);
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false);
    assert.equal(prompt().view.state, 'pending');
    await broker.handleAction(click('deny', 'p1', ANA));
    assert.equal((await decision).behavior, 'deny');
  });

  it('first decision wins; a later click hears who decided', async () => {
    const { broker, ask, posted, updated, surface } = setup();
    const decision = ask();
    await posted();
    await broker.handleAction(click('allow', 'p1', ANA));
    const late = click('deny', 'p1', BOSS);
    await broker.handleAction(late);
    assert.deepEqual(await decision, { behavior: 'allow' });
    assert.deepEqual(late.told, ['This request was already allowed by @ana.']);
    await updated('allowed');
    await broker.idle();
    assert.equal(surface.callsOf('updatePrompt').length, 1);
  });

  it('times out to deny and shows "timed out" (mock timers)', async () => {
    // setTimeout is mocked here: wait with setImmediate instead.
    const settle = async (cond: () => boolean) => {
      for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setImmediate(r));
      assert.ok(cond());
    };
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const { broker, ask, surface, prompt } = setup();
      const decision = ask({ timeoutMs: 600_000 });
      await settle(() => surface.prompts().length === 1);
      mock.timers.tick(599_999);
      assert.equal(prompt().view.state, 'pending');
      mock.timers.tick(1);
      const d = await decision;
      assert.equal(d.behavior, 'deny');
      assert.match(d.message!, /within 10 min/);
      await settle(() => prompt().view.state === 'timeout');
      assert.match(prompt().view.note!, /timed out after 10 min/);
      const late = click('allow', 'p1', ANA);
      await broker.handleAction(late);
      assert.deepEqual(late.told, ['This permission request timed out and was denied.']);
    } finally {
      mock.timers.reset();
    }
  });

  it('shows "expired" when the turn ends first (signal or expireTurn), and a later click is told so', async () => {
    const { broker, ask, posted, surface } = setup();
    const ac = new AbortController();
    const d1 = ask({ signal: ac.signal });
    const d2 = ask({ turnId: 't2' });
    await waitFor(() => surface.prompts().length === 2, 'two prompts');
    ac.abort();
    assert.equal((await d1).behavior, 'deny');
    broker.expireTurn('t2');
    assert.equal((await d2).behavior, 'deny');
    await broker.idle();
    assert.deepEqual(surface.prompts().map((p) => p.view.state), ['expired', 'expired']);
    assert.match(surface.prompts()[0]!.view.note!, /turn ended/);
    const c = click('allow', 'p1', ANA);
    await broker.handleAction(c);
    assert.deepEqual(c.told, ['This permission request has expired; nothing was changed.']);
    const unknown = click('allow', 'nope', ANA);
    await broker.handleAction(unknown);
    assert.deepEqual(unknown.told, ['This permission request has expired; nothing was changed.']);
    void posted;
  });

  it('an aborted signal before the request answers deny without a prompt; a failed post answers deny', async () => {
    const { ask, surface } = setup();
    const ac = new AbortController();
    ac.abort();
    assert.equal((await ask({ signal: ac.signal })).behavior, 'deny');
    assert.equal(surface.prompts().length, 0);
    surface.failNext('postPrompt', 1, { error: new TurnbridgeError('TB_PLATFORM_ERROR', 'Slack chat.postMessage failed: channel_not_found', { permanent: true }) });
    const d = await ask();
    assert.equal(d.behavior, 'deny');
    assert.match(d.message!, /could not show the permission prompt/);
    assert.equal(surface.callsOf('postPrompt').length, 1, 'a permanent refusal is not retried');
  });

  it('a 429 or a transient failure on the prompt is retried, not denied; the timeout counts from when it shows', async () => {
    const { broker, ask, surface, prompt } = setup();
    surface.failNext('postPrompt', 1, { retryAfterMs: 5 }).failNext('postPrompt', 1, { message: 'HTTP 503' });
    let settled = false;
    const decision = ask({ timeoutMs: 60_000 }).then((d) => ((settled = true), d));
    await waitFor(() => surface.prompts().length === 1, 'the prompt, after a 429 and a 503');
    assert.equal(surface.callsOf('postPrompt').length, 3);
    assert.equal(settled, false, 'not denied');
    assert.equal(prompt().view.expiresAt, 61_000);
    await broker.handleAction(click('allow', 'p1', ANA));
    assert.deepEqual(await decision, { behavior: 'allow' });
  });

  it('long inputs are truncated for display only, and non-command inputs are pretty JSON', async () => {
    const { ask, broker, surface } = setup();
    const big = { file_path: '/x', content: 'y'.repeat(5000) };
    void ask({ request: { requestId: 'r2', toolName: 'Write', input: big } });
    await waitFor(() => surface.prompts().length === 1, 'prompt');
    const preview = surface.prompts()[0]!.view.inputPreview;
    assert.ok(preview.startsWith('{\n  "file_path": "/x",'));
    assert.ok(preview.length < 2700);
    assert.match(preview, /truncated for display: \d+ more characters/);
    broker.expireAll();
  });
});
