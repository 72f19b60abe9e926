import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createHttpServer, sendText, type HttpServer } from '../../../src/http/index.js';
import { silentLogger } from '../../../src/log.js';
import type { PlatformStatus } from '../../../src/bridge/types.js';

async function started(metrics?: () => string | Promise<string>): Promise<HttpServer> {
  const server = createHttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger, metrics });
  await server.listen();
  return server;
}

function platform(name: string, st: () => PlatformStatus) {
  return { name, status: st };
}

test('listens on 127.0.0.1 with port 0 and reports the URL', async (t) => {
  const server = await started();
  t.after(() => server.close());
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  assert.ok(server.port > 0);
  assert.equal(server.url, `http://127.0.0.1:${server.port}/`);
});

test('GET /healthz answers 200 while the process is up; other methods get 405', async (t) => {
  const server = await started();
  t.after(() => server.close());
  const res = await fetch(`${server.url}healthz`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: 'ok' });
  const post = await fetch(`${server.url}healthz`, { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get('allow'), 'GET, HEAD');
});

test('GET /readyz is 200 when every platform is ready, else 503 naming the platform, reason and hint', async (t) => {
  const server = await started();
  t.after(() => server.close());
  let slack: PlatformStatus = { state: 'starting' };
  server.addReadiness(platform('local', () => ({ state: 'ready' })));
  server.addReadiness(platform('slack', () => slack));

  let res = await fetch(`${server.url}readyz`);
  assert.equal(res.status, 503);
  let body = (await res.json()) as { status: string; notReady: Array<Record<string, unknown>> };
  assert.equal(body.status, 'not ready');
  assert.deepEqual(body.notReady, [{ name: 'slack', state: 'starting' }]);

  slack = { state: 'degraded', reason: 'invalid_auth from auth.test', hint: 'check SLACK_BOT_TOKEN' };
  res = await fetch(`${server.url}readyz`);
  assert.equal(res.status, 503);
  body = (await res.json()) as typeof body;
  assert.deepEqual(body.notReady, [{ name: 'slack', state: 'degraded', reason: 'invalid_auth from auth.test', hint: 'check SLACK_BOT_TOKEN' }]);

  slack = { state: 'ready' };
  res = await fetch(`${server.url}readyz`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: 'ready', platforms: [{ name: 'local', state: 'ready' }, { name: 'slack', state: 'ready' }] });
});

test('/readyz reports a platform whose status() throws as degraded, and 503 once draining', async (t) => {
  const server = await started();
  t.after(() => server.close());
  server.addReadiness(platform('broken', () => { throw new Error('boom'); }));
  let res = await fetch(`${server.url}readyz`);
  assert.equal(res.status, 503);
  const body = (await res.json()) as { notReady: Array<{ name: string; reason: string }> };
  assert.equal(body.notReady[0]!.name, 'broken');
  assert.match(body.notReady[0]!.reason, /boom/);

  const ok = await started();
  t.after(() => ok.close());
  ok.addReadiness(platform('local', () => ({ state: 'ready' })));
  assert.equal((await fetch(`${ok.url}readyz`)).status, 200);
  ok.setDraining();
  res = await fetch(`${ok.url}readyz`);
  assert.equal(res.status, 503);
  assert.equal(((await res.json()) as { reason: string }).reason, 'shutting down');
  assert.equal((await fetch(`${ok.url}healthz`)).status, 200, 'still alive while draining');
});

test('GET /metrics serves the Prometheus text the metrics source renders', async (t) => {
  let turns = 0;
  const server = await started(async () => `# TYPE turnbridge_turns_total counter\nturnbridge_turns_total{outcome="success"} ${turns}\n`);
  t.after(() => server.close());
  turns = 3;
  const res = await fetch(`${server.url}metrics`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  assert.equal(await res.text(), '# TYPE turnbridge_turns_total counter\nturnbridge_turns_total{outcome="success"} 3\n');
});

test('mounted handlers: longest prefix wins, built-ins cannot be shadowed, unknown paths are 404', async (t) => {
  const server = await started();
  t.after(() => server.close());
  server.mount('/', (_req, res, { subpath }) => sendText(res, 200, `root ${subpath}`));
  server.mount('/slack', (_req, res, { subpath }) => sendText(res, 200, `slack ${subpath}`));
  assert.throws(() => server.mount('/healthz', () => {}), /built-in/);
  assert.throws(() => server.mount('/slack/', () => {}), /already mounted/);

  assert.equal(await (await fetch(`${server.url}slack/events`)).text(), 'slack /events');
  assert.equal(await (await fetch(`${server.url}slack`)).text(), 'slack /');
  assert.equal(await (await fetch(`${server.url}slackers`)).text(), 'root /slackers');
  assert.equal(await (await fetch(`${server.url}x/y?q=1`)).text(), 'root /x/y');
  assert.deepEqual(await (await fetch(`${server.url}healthz`)).json(), { status: 'ok' });

  const bare = await started();
  t.after(() => bare.close());
  assert.equal((await fetch(`${bare.url}nothing`)).status, 404);
});

test('a handler that throws answers 500 and the server keeps serving', async (t) => {
  const server = await started();
  t.after(() => server.close());
  server.mount('/boom', () => { throw new Error('handler bug'); });
  const res = await fetch(`${server.url}boom`);
  assert.equal(res.status, 500);
  assert.equal((await fetch(`${server.url}healthz`)).status, 200);
});

test('close() runs close hooks and ends long-lived streams instead of waiting for them', async () => {
  const server = await started();
  let hookRan = false;
  const open = new Set<import('node:http').ServerResponse>();
  server.mount('/stream', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': hi\n\n');
    open.add(res);
  });
  server.onClose(() => {
    hookRan = true;
    for (const res of open) res.end();
  });
  const ended = new Promise<void>((resolve, reject) => {
    const req = request(`${server.url}stream`, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
  while (open.size === 0) await new Promise((r) => setImmediate(r));
  await server.close(60_000);
  await ended;
  assert.equal(hookRan, true);
  await assert.rejects(fetch(`${server.url}healthz`));
});

test('close() drops a stream nobody ends once the grace runs out', async () => {
  const server = await started();
  server.mount('/hang', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': hi\n\n');
  });
  let streaming!: () => void;
  const open = new Promise<void>((r) => { streaming = r; });
  const closed = new Promise<void>((resolve, reject) => {
    const req = request(`${server.url}hang`, (res) => {
      res.once('data', () => streaming());
      res.on('close', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
  await open; // the stream is open (its first bytes came) before the server closes
  await server.close(10);
  await closed;
});
