/**
 * TURNBRIDGE_METRICS_TOKEN on the real HTTP server: /metrics answers only the right bearer token
 * (401 with WWW-Authenticate otherwise), /readyz keeps its status code for probes but shows its
 * details only with the token, /healthz stays open; with no token everything is as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHttpServer, bearerToken, sameSecret, type HttpServer } from '../../../src/http/index.js';
import { logCapture } from '../../fakes/log-capture.js';
import { silentLogger, type Logger } from '../../../src/log.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const METRICS = '# HELP turnbridge_active_agents agents\n# TYPE turnbridge_active_agents gauge\nturnbridge_active_agents 0\n';

async function started(metricsToken?: string, logger: Logger = silentLogger): Promise<HttpServer> {
  const server = createHttpServer({ host: '127.0.0.1', port: 0, logger, metrics: () => METRICS, ...(metricsToken ? { metricsToken } : {}) });
  await server.listen();
  server.addReadiness({ name: 'slack', status: () => ({ state: 'degraded', reason: 'invalid_auth', hint: 'check SLACK_BOT_TOKEN' }) });
  server.addReadyDetail('replica', () => ({ id: 'replica-a', heldTurns: 3 }));
  return server;
}

const auth = (value: string) => ({ headers: { authorization: value } });

test('no metrics token configured: /metrics and the full /readyz answer anyone, as before', async (t) => {
  const server = await started();
  t.after(() => server.close());
  const res = await fetch(`${server.url}metrics`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), METRICS);
  assert.equal((await fetch(`${server.url}metrics`, auth('Bearer anything-at-all-here'))).status, 200, 'a header is not needed, and not refused');
  const ready = await fetch(`${server.url}readyz`);
  assert.equal(ready.status, 503);
  const body = await ready.json() as Record<string, unknown>;
  assert.deepEqual(body.replica, { id: 'replica-a', heldTurns: 3 });
  assert.equal((body.notReady as unknown[]).length, 1);
});

test('token configured: /metrics is 401 without a header, with a wrong token (same length, other length) or another scheme', async (t) => {
  const server = await started(TOKEN);
  t.after(() => server.close());
  const missing = await fetch(`${server.url}metrics`);
  assert.equal(missing.status, 401);
  assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="turnbridge"');
  const body = await missing.json() as { error: string };
  assert.match(body.error, /Authorization: Bearer .*TURNBRIDGE_METRICS_TOKEN/);
  assert.ok(!JSON.stringify(body).includes(TOKEN), 'the token is never in an answer');
  assert.ok(!(await fetch(`${server.url}metrics`)).headers.get('content-type')?.startsWith('text/plain; version'), 'no metrics text');

  const sameLength = TOKEN.slice(0, -1) + (TOKEN.endsWith('f') ? 'e' : 'f');
  assert.equal(sameLength.length, TOKEN.length);
  for (const [name, header] of [
    ['same length, one character off', `Bearer ${sameLength}`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, 8)}`],
    ['the token and more', `Bearer ${TOKEN}x`],
  ] as const) {
    const res = await fetch(`${server.url}metrics`, auth(header));
    assert.equal(res.status, 401, name);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="turnbridge", error="invalid_token"', name);
    assert.doesNotMatch(await res.text(), /turnbridge_active_agents/, name);
  }
  for (const header of [`Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`, TOKEN, 'Bearer', `Bearer ${TOKEN} extra`]) {
    const res = await fetch(`${server.url}metrics`, auth(header));
    assert.equal(res.status, 401, header);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="turnbridge"', `${header}: read as no bearer token`);
  }
  const head = await fetch(`${server.url}metrics`, { method: 'HEAD' });
  assert.equal(head.status, 401, 'HEAD is guarded too');
});

test('token configured: the right bearer token gets the metrics (scheme in any case), and POST is still 405', async (t) => {
  const server = await started(TOKEN);
  t.after(() => server.close());
  for (const scheme of ['Bearer', 'bearer']) {
    const res = await fetch(`${server.url}metrics`, auth(`${scheme} ${TOKEN}`));
    assert.equal(res.status, 200, scheme);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.equal(await res.text(), METRICS);
  }
  assert.equal((await fetch(`${server.url}metrics`, { method: 'POST', ...auth(`Bearer ${TOKEN}`) })).status, 405);
});

test('token configured: /readyz keeps its status code for probes, with details only for the token; /healthz stays open', async (t) => {
  const server = await started(TOKEN);
  t.after(() => server.close());
  const probe = await fetch(`${server.url}readyz`);
  assert.equal(probe.status, 503, 'the status code a load balancer reads is unchanged');
  assert.deepEqual(await probe.json(), { status: 'not ready' }, 'no platform, reason or replica id without the token');
  const wrong = await fetch(`${server.url}readyz`, auth(`Bearer ${TOKEN.replace('m', 'M')}`));
  assert.deepEqual(await wrong.json(), { status: 'not ready' });
  const full = await fetch(`${server.url}readyz`, auth(`Bearer ${TOKEN}`));
  assert.equal(full.status, 503);
  const body = await full.json() as { notReady: Array<{ name: string; reason: string }>; replica: unknown };
  assert.equal(body.notReady[0]!.reason, 'invalid_auth');
  assert.deepEqual(body.replica, { id: 'replica-a', heldTurns: 3 });
  server.setDraining();
  assert.deepEqual(await (await fetch(`${server.url}readyz`)).json(), { status: 'not ready' });
  assert.equal(((await (await fetch(`${server.url}readyz`, auth(`Bearer ${TOKEN}`))).json()) as { reason: string }).reason, 'shutting down');
  const health = await fetch(`${server.url}healthz`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: 'ok' });
});

test('refused scrapes are logged (why, never the token), at most once per 100', async (t) => {
  const capture = logCapture('info');
  const server = await started(TOKEN, capture.logger);
  t.after(() => server.close());
  await fetch(`${server.url}metrics`, auth('Bearer wrong-token-wrong-token'));
  for (let i = 0; i < 5; i++) await fetch(`${server.url}metrics`);
  await fetch(`${server.url}metrics`, auth(`Bearer ${TOKEN}`));
  const refused = capture.lines.filter((l) => /metrics request refused/.test(String(l.msg)));
  assert.equal(refused.length, 1, JSON.stringify(refused));
  assert.equal(refused[0]!.why, 'wrong token');
  assert.ok(!JSON.stringify(capture.lines).includes(TOKEN) && !JSON.stringify(capture.lines).includes('wrong-token-wrong-token'), 'no token in the log');
});

test('bearerToken reads the Bearer scheme only; sameSecret is exact for any lengths', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('bearer   abc  '), 'abc');
  assert.equal(bearerToken('Basic abc'), undefined);
  assert.equal(bearerToken('Bearer a b'), undefined);
  assert.equal(bearerToken(undefined), undefined);
  assert.equal(sameSecret(TOKEN, TOKEN), true);
  assert.equal(sameSecret(TOKEN.toUpperCase(), TOKEN), false);
  assert.equal(sameSecret('', TOKEN), false);
  assert.equal(sameSecret(`${TOKEN}\0`, TOKEN), false);
});
