/**
 * The bridge as `npm start` wires it on 0.0.0.0 with TURNBRIDGE_METRICS_TOKEN_FILE (a Kubernetes
 * secret): Prometheus' scrape (an IP Host and `Authorization: Bearer`) gets the metrics, anything
 * else a 401; /healthz and /readyz's status code stay open; no open-metrics warning, the doctor's
 * start-up line is ✓, and the token is nowhere in the log or the printed lines.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startTurnbridge, type RunningTurnbridge } from '../../../src/main.js';
import { logCapture } from '../../fakes/log-capture.js';

const TOKEN = 'k8s-secret-9f8e7d6c5b4a39281706';
let dir = '';
let running: RunningTurnbridge;
const printed: string[] = [];
const log = logCapture('debug');

/** A GET as Prometheus sends it: to the pod's IP, Host = that IP:port. */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const port = running.http.port;
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers: { host: `10.0.0.7:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    }).on('error', reject).end();
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-metrics-token-'));
  await writeFile(join(dir, 'metrics-token'), `${TOKEN}\n`);
  running = await startTurnbridge({
    env: {
      PATH: process.env.PATH, HOST: '0.0.0.0', PORT: '0', TURNBRIDGE_DATA_DIR: join(dir, 'data'), TURNBRIDGE_WORKSPACE: join(dir, 'ws'),
      TURNBRIDGE_METRICS_TOKEN_FILE: join(dir, 'metrics-token'), LOG_LEVEL: 'debug',
    },
    logger: log.logger,
    print: (l) => printed.push(l),
  });
  await running.checks.done;
});
after(async () => {
  await running.shutdown();
  await rm(dir, { recursive: true, force: true });
});

it('the scrape with the token from the file gets Prometheus text; without it, or with another token, 401', async () => {
  const ok = await get('/metrics', { authorization: `Bearer ${TOKEN}` });
  assert.equal(ok.status, 200, ok.body);
  const names = parsePrometheusTextFormat(ok.body).map((f) => f.name);
  assert.ok(names.includes('turnbridge_active_agents') && names.includes('process_resident_memory_bytes'), names.join(' '));

  const none = await get('/metrics');
  assert.equal(none.status, 401);
  assert.equal(none.headers['www-authenticate'], 'Bearer realm="turnbridge"');
  assert.match(none.body, /TURNBRIDGE_METRICS_TOKEN/);
  const wrong = await get('/metrics', { authorization: `Bearer ${TOKEN.replace('k8s', 'k9s')}` });
  assert.equal(wrong.status, 401);
  assert.doesNotMatch(wrong.body, /turnbridge_/);
});

it('/healthz is open; /readyz answers its code to a probe and its details to the token', async () => {
  assert.equal((await get('/healthz')).status, 200);
  await running.recovered;
  const probe = await get('/readyz');
  assert.equal(probe.status, 200, probe.body);
  assert.deepEqual(JSON.parse(probe.body), { status: 'ready' });
  const full = JSON.parse((await get('/readyz', { authorization: `Bearer ${TOKEN}` })).body) as { platforms: Array<{ name: string }>; checks: { state: string; warnings: Array<{ text: string }> } };
  assert.deepEqual(full.platforms.map((p) => p.name), ['local', 'recovery']);
  assert.equal(full.checks.state, 'done');
  assert.ok(!full.checks.warnings.some((w) => /\/metrics/.test(w.text)), 'the doctor finds /metrics guarded');
});

it('no open-metrics warning; the token is in no log line and no printed line', () => {
  assert.ok(!printed.some((l) => /\/metrics/.test(l)), printed.join('\n'));
  assert.ok(!log.lines.some((l) => /\/metrics and the \/readyz details are open/.test(String(l.msg))));
  assert.ok(log.lines.some((l) => /metrics request refused/.test(String(l.msg))), 'the refusal was logged');
  assert.ok(log.lines.length > 5, 'the log was captured');
  const everything = JSON.stringify(log.lines) + printed.join('\n');
  assert.ok(!everything.includes(TOKEN), 'the metrics token is never logged or printed');
});
