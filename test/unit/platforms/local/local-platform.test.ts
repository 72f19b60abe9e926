import type { BridgeConfig } from '../../../../src/config/types.js';
import { InboundStateDouble } from '../../../fakes/inbound-state.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { createHttpServer, type HttpServer } from '../../../../src/http/index.js';
import { createLocalPlatform, parseLocalConfig, type LocalPlatform } from '../../../../src/platforms/local/index.js';
import { silentLogger } from '../../../../src/log.js';
import type { ActionEvent, BridgeInbound, InboundMessage } from '../../../../src/bridge/types.js';
import { openSecurity } from '../../../fixtures/config-defaults.js';

function config(local?: Record<string, unknown>, over: Partial<BridgeConfig> = {}): BridgeConfig {
  return {
    ...openSecurity(), defaultProfile: '/nonexistent/profile.yaml', routes: [], approvers: [], queueDepth: 5, maxConcurrent: 4,
    permissionTimeoutSecs: 600, dataDir: '/tmp/unused', host: '127.0.0.1', port: 0, shutdownGraceSecs: 1,
    logLevel: 'silent', platforms: local ? { local: parseLocalConfig(local) } : {}, ...over,
  };
}

class RecordingBridge extends InboundStateDouble implements BridgeInbound {
  messages: InboundMessage[] = [];
  actions: ActionEvent[] = [];
  async handleMessage(msg: InboundMessage) { this.messages.push(msg); this.accepted(msg); }
  async handleAction(ev: ActionEvent) {
    this.actions.push(ev);
    await ev.notifyPrivately(`only you can see this (${ev.action})`);
  }
}

interface Frame { event: string; data: any }

/** A tiny SSE client over node:http that records frames. */
function openEvents(url: string): Promise<{ frames: Frame[]; waitFor(pred: (f: Frame) => boolean): Promise<Frame>; close(): void; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      const frames: Frame[] = [];
      const waiters: Array<{ pred: (f: Frame) => boolean; done: (f: Frame) => void }> = [];
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!event || data === undefined) continue;
          const f = { event, data: JSON.parse(data) };
          frames.push(f);
          for (const w of [...waiters]) if (w.pred(f)) { waiters.splice(waiters.indexOf(w), 1); w.done(f); }
        }
      });
      resolve({
        frames,
        res,
        waitFor: (pred) => {
          const seen = frames.find(pred);
          return seen ? Promise.resolve(seen) : new Promise((done) => waiters.push({ pred, done }));
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function setup(local?: Record<string, unknown>): Promise<{ http: HttpServer; platform: LocalPlatform; bridge: RecordingBridge; url: string }> {
  const http = createHttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
  const platform = createLocalPlatform({ config: config(local), logger: silentLogger, http, heartbeatMs: 0 });
  const bridge = new RecordingBridge();
  const url = await http.listen();
  return { http, platform, bridge, url };
}

const json = (body: unknown, headers: Record<string, string> = {}) =>
  ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

test('status goes starting -> ready -> stopped; posts before start or after stop get 503', async (t) => {
  const { http, platform, bridge, url } = await setup();
  t.after(() => http.close(10));
  assert.deepEqual(platform.status(), { state: 'starting' });
  assert.equal((await fetch(`${url}local/send`, json({ page: 'tab1', text: 'hi' }))).status, 503);
  await platform.start(bridge);
  assert.deepEqual(platform.status(), { state: 'ready' });
  await platform.stop();
  assert.deepEqual(platform.status(), { state: 'stopped' });
  assert.equal((await fetch(`${url}local/send`, json({ page: 'tab1', text: 'hi' }))).status, 503);
  assert.equal(bridge.messages.length, 0);
});

test('serves the page and its scripts with a strict content security policy', async (t) => {
  const { http, url } = await setup();
  t.after(() => http.close(10));
  const page = await fetch(url);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type')!, /text\/html/);
  assert.match(page.headers.get('content-security-policy')!, /script-src 'self'/);
  const html = await page.text();
  for (const id of ['message-input', 'send-button', 'connection']) assert.ok(html.includes(`data-testid="${id}"`), id);
  for (const file of ['app.js', 'markdown.js', 'app.css']) {
    const res = await fetch(`${url}local/${file}`);
    assert.equal(res.status, 200, file);
    assert.ok((await res.text()).length > 100, file);
  }
  assert.equal((await fetch(`${url}local/nope.js`)).status, 404);
});

test('a message typed in a tab reaches the bridge as an InboundMessage and shows in that tab only', async (t) => {
  const { http, platform, bridge, url } = await setup();
  t.after(() => http.close(10));
  await platform.start(bridge);
  const tab1 = await openEvents(`${url}local/events?page=tab1`);
  const tab2 = await openEvents(`${url}local/events?page=tab2`);
  t.after(() => { tab1.close(); tab2.close(); });
  assert.deepEqual((await tab1.waitFor((f) => f.event === 'snapshot')).data, { page: 'tab1', items: [] });

  const res = await fetch(`${url}local/send`, json({ page: 'tab1', text: '  hello bot  ', id: 'm1' }));
  assert.equal(res.status, 202);
  assert.equal(bridge.messages.length, 1);
  const msg = bridge.messages[0]!;
  assert.equal(msg.platform, 'local');
  assert.deepEqual(msg.conversation, { space: 'local', channel: 'tab1', thread: '' });
  assert.deepEqual(msg.user, { id: 'local-user', name: 'you' });
  assert.equal(msg.text, 'hello bot');
  assert.deepEqual(msg.attachments, []);
  assert.equal(msg.eventId, 'local:tab1:m1');
  assert.deepEqual(msg.source, { id: 'u-m1', conversation: msg.conversation });

  const shown = await tab1.waitFor((f) => f.event === 'item');
  assert.equal(shown.data.kind, 'user');
  assert.equal(shown.data.text, '  hello bot  ');

  // A retried POST with the same id keeps the same eventId (the bridge drops the duplicate).
  await fetch(`${url}local/send`, json({ page: 'tab1', text: 'hello bot', id: 'm1' }));
  assert.equal(bridge.messages[1]!.eventId, 'local:tab1:m1');

  await platform.surface.react!(msg.source!, 'success');
  assert.equal((await tab1.waitFor((f) => f.event === 'item' && f.data.state === 'success')).data.id, 'u-m1');
  assert.equal(tab2.frames.filter((f) => f.event !== 'snapshot').length, 0, 'tab2 saw nothing of tab1');
});

test('the Surface renders posts, edits and prompts into the page and a reconnect gets a snapshot', async (t) => {
  const { http, platform, bridge, url } = await setup({ max_text_chars: 500, edits_per_minute: 30, min_edit_interval_ms: 100 });
  t.after(() => http.close(10));
  await platform.start(bridge);
  const s = platform.surface;
  assert.equal(s.platform, 'local');
  assert.equal(s.capabilities.maxTextChars, 500);
  assert.equal(s.capabilities.minEditIntervalMs, 100);
  assert.equal(s.capabilities.buttons, true);
  const conv = { space: 'local', channel: 'tabA', thread: '' };
  assert.deepEqual(s.budgets('edit', conv), [{ key: 'local:tabA:edit', perMinute: 30, burst: 2 }]);
  assert.notEqual(s.budgets('edit', conv)[0]!.key, s.budgets('edit', { ...conv, channel: 'tabB' })[0]!.key);

  const tab = await openEvents(`${url}local/events?page=tabA`);
  t.after(() => tab.close());
  const ref = await s.post(conv, { text: '', status: 'working…', tone: 'progress', stopActionId: 'stop-1' });
  await s.edit(ref, { text: 'Hello **world**', thinking: 'hmm', status: 'working…', tone: 'progress', stopActionId: 'stop-1' });
  const edited = await tab.waitFor((f) => f.event === 'item' && f.data.edits === 1);
  assert.deepEqual(edited.data.content, { text: 'Hello **world**', thinking: 'hmm', status: 'working…', tone: 'progress', stopActionId: 'stop-1' });

  const p = await s.postPrompt(conv, { promptId: 'pr-1', toolName: 'Bash', inputPreview: 'date', state: 'pending' });
  await s.updatePrompt(p, { promptId: 'pr-1', toolName: 'Bash', inputPreview: 'date', state: 'allowed', decidedBy: { id: 'local-user', name: 'you' } });
  await tab.waitFor((f) => f.event === 'item' && f.data.kind === 'prompt' && f.data.view.state === 'allowed');

  await assert.rejects(s.edit({ id: 'm-missing', conversation: conv }, { text: 'x' }), (e: any) => e.code === 'TB_PLATFORM_ERROR');
  await assert.rejects(s.updatePrompt(ref, { promptId: 'x', toolName: 'x', inputPreview: '', state: 'expired' }), (e: any) => e.code === 'TB_PLATFORM_ERROR');

  const again = await openEvents(`${url}local/events?page=tabA`);
  t.after(() => again.close());
  const snap = await again.waitFor((f) => f.event === 'snapshot');
  assert.deepEqual(snap.data.items.map((i: any) => [i.kind, i.id]), [['bot', ref.id], ['prompt', p.id]]);
  assert.equal(snap.data.items[1].view.state, 'allowed');
});

test('clicks go to bridge.handleAction as the local user; notifyPrivately shows a toast in that tab', async (t) => {
  const { http, platform, bridge, url } = await setup();
  t.after(() => http.close(10));
  await platform.start(bridge);
  const tab = await openEvents(`${url}local/events?page=tab1`);
  t.after(() => tab.close());
  const res = await fetch(`${url}local/action`, json({ page: 'tab1', action: 'allow', id: 'pr-9' }));
  assert.equal(res.status, 200);
  assert.equal(bridge.actions.length, 1);
  assert.equal(bridge.actions[0]!.platform, 'local');
  assert.equal(bridge.actions[0]!.action, 'allow');
  assert.equal(bridge.actions[0]!.id, 'pr-9');
  assert.equal(bridge.actions[0]!.user.id, 'local-user');
  assert.equal((await tab.waitFor((f) => f.event === 'toast')).data.text, 'only you can see this (allow)');
  assert.equal((await fetch(`${url}local/action`, json({ page: 'tab1', action: 'delete', id: 'x' }))).status, 400);
});

test('cross-site and malformed posts are refused before reaching the bridge', async (t) => {
  const { http, platform, bridge, url } = await setup();
  t.after(() => http.close(10));
  await platform.start(bridge);
  const evil = await fetch(`${url}local/send`, json({ page: 'tab1', text: 'rm -rf' }, { origin: 'http://evil.example' }));
  assert.equal(evil.status, 403);
  const form = await fetch(`${url}local/send`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ page: 'tab1', text: 'x' }) });
  assert.equal(form.status, 403);
  const same = await fetch(`${url}local/send`, json({ page: 'tab1', text: 'ok' }, { origin: url.replace(/\/$/, '') }));
  assert.equal(same.status, 202);
  assert.equal((await fetch(`${url}local/send`, json({ page: '../etc', text: 'x' }))).status, 400);
  assert.equal((await fetch(`${url}local/send`, json({ page: 'tab1', text: '   ' }))).status, 400);
  assert.equal((await fetch(`${url}local/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' })).status, 400);
  assert.equal((await fetch(`${url}local/events?page=bad%20id`)).status, 400);
  assert.equal(bridge.messages.length, 1);
});

test('on loopback, requests naming another host (DNS rebinding) are refused, localhost is served', async (t) => {
  const { http, platform, bridge, url } = await setup();
  t.after(() => http.close(10));
  await platform.start(bridge);
  const port = new URL(url).port;
  const get = (host: string, path = '/') => new Promise<number>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => { res.resume(); resolve(res.statusCode!); }).on('error', reject).end();
  });
  assert.equal(await get(`evil.example:${port}`), 421);
  assert.equal(await get(`evil.example:${port}`, '/local/events?page=tab1'), 421);
  assert.equal(await get(`localhost:${port}`), 200);
  assert.equal(await get(`127.0.0.1:${port}`), 200);
  assert.equal(await get(`[::1]:${port}`), 200);
  const rebound = await new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/local/send', method: 'POST',
      headers: { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, 'content-type': 'application/json' } },
    (res) => { res.resume(); resolve(res.statusCode!); });
    req.on('error', reject);
    req.end(JSON.stringify({ page: 'tab1', text: 'hi' }));
  });
  assert.equal(rebound, 421);
  assert.equal(bridge.messages.length, 0);
});

test('off loopback the page asks for its token: ?token= trades it for a cookie, then the page, its stream and its posts work', async (t) => {
  const http = createHttpServer({ host: '0.0.0.0', port: 0, logger: silentLogger });
  const platform = createLocalPlatform({ config: config(undefined, { host: '0.0.0.0' }), logger: silentLogger, http, heartbeatMs: 0 });
  const bridge = new RecordingBridge();
  const url = (await http.listen()).replace('0.0.0.0', '127.0.0.1');
  t.after(() => http.close(10));
  await platform.start(bridge);
  const token = platform.token!;
  assert.ok(token && token.length >= 20, 'a token was made');
  const bare = await fetch(url);
  assert.equal(bare.status, 401);
  assert.match(await bare.text(), /TURNBRIDGE_LOCAL_TOKEN/);
  assert.equal((await fetch(`${url}local/send`, json({ page: 'tab1', text: 'hi' }))).status, 401);
  assert.equal((await fetch(`${url}?token=wrong`, { redirect: 'manual' })).status, 401);
  const traded = await fetch(`${url}?token=${token}`, { redirect: 'manual' });
  assert.equal(traded.status, 303);
  const cookie = traded.headers.get('set-cookie')!.split(';')[0]!;
  assert.match(traded.headers.get('set-cookie')!, /HttpOnly; SameSite=Strict/);
  assert.equal((await fetch(url, { headers: { cookie } })).status, 200);
  assert.equal((await fetch(`${url}local/send`, json({ page: 'tab1', text: 'hi' }, { cookie }))).status, 202);
  assert.equal((await fetch(`${url}local/send`, json({ page: 'tab1', text: 'hi again' }, { authorization: `Bearer ${token}` }))).status, 202);
  assert.equal(bridge.messages.length, 2);
});

test('on loopback without TURNBRIDGE_LOCAL_TOKEN the page needs no setup', async (t) => {
  const { http, platform } = await setup();
  t.after(() => http.close(10));
  assert.equal(platform.token, undefined);
});

test('closing the HTTP server ends open page streams', async () => {
  const { http, platform, bridge, url } = await setup();
  await platform.start(bridge);
  const tab = await openEvents(`${url}local/events?page=tab1`);
  await tab.waitFor((f) => f.event === 'snapshot');
  const ended = new Promise((r) => tab.res.on('end', r));
  await http.close(60_000);
  await ended;
  assert.equal(platform.hub.clientCount(), 0);
});

test('local: config is validated with the field named', () => {
  assert.equal(parseLocalConfig(undefined).maxTextChars, 3000);
  assert.equal(parseLocalConfig({ enabled: true, posts_per_minute: 10 }).postsPerMinute, 10);
  assert.throws(() => parseLocalConfig({ max_text_chars: 5 }, '/x/turnbridge.yaml'),
    (e: any) => e.code === 'TB_CONFIG_INVALID' && e.field === 'local.max_text_chars' && /\/x\/turnbridge\.yaml/.test(e.message));
  assert.throws(() => parseLocalConfig({ maxTextChars: 500 }), (e: any) => e.code === 'TB_CONFIG_INVALID' && /max_text_chars/.test(e.message));
  assert.throws(() => parseLocalConfig({ enabled: 'yes' }), (e: any) => e.field === 'local.enabled');
});
