/**
 * The bridge as `npm start` wires it, bound to 0.0.0.0 (a Procfile / container deploy): DNS
 * rebinding requests are refused on every route, and the local page asks for the token printed
 * at start-up. No TURNBRIDGE_METRICS_TOKEN: /metrics stays served (as before), with one printed
 * warning and the doctor's finding.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTurnbridge, type RunningTurnbridge } from '../../../src/main.js';
import { silentLogger } from '../../../src/log.js';
import { sandboxProblem } from '../../../src/runner/index.js';

let dir = '';
let running: RunningTurnbridge;
const printed: string[] = [];

function get(port: number, path: string, host: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers: { host, ...headers } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.destroy();
    }).on('error', reject).end();
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-local-sec-'));
  running = await startTurnbridge({
    env: { PATH: process.env.PATH, HOST: '0.0.0.0', PORT: '0', TURNBRIDGE_DATA_DIR: join(dir, 'data'), TURNBRIDGE_WORKSPACE: join(dir, 'ws'), LOG_LEVEL: 'silent' },
    logger: silentLogger,
    print: (l) => printed.push(l),
  });
});
after(async () => {
  await running.shutdown();
  await rm(dir, { recursive: true, force: true });
});

it('on 0.0.0.0 a rebinding request (an attacker\'s host name) is refused everywhere; the page needs the printed token', async () => {
  const port = running.http.port;
  for (const path of ['/', '/local/events?page=tab1', '/readyz', '/metrics']) {
    assert.equal((await get(port, path, `rebind.attacker.example:${port}`)).status, 421, path);
  }
  const line = printed.find((l) => l.includes('local chat at'))!;
  const token = /\?token=([A-Za-z0-9_-]+)/.exec(line)?.[1];
  assert.ok(token, `the start-up line carries the token: ${line}`);
  const mode = sandboxProblem() === null ? /^turnbridge: agents run sandboxed \(TURNBRIDGE_SANDBOX=auto, the default\)/ : /^turnbridge: warning: the sandbox cannot start here/;
  assert.ok(printed.some((l) => mode.test(l)), `the start-up line names the sandbox mode in force: ${printed.join('\n')}`);
  assert.equal((await get(port, '/', `127.0.0.1:${port}`)).status, 401, 'no token, no page');
  const traded = await get(port, `/?token=${token}`, `127.0.0.1:${port}`);
  assert.equal(traded.status, 303);
  const cookie = String((traded.headers['set-cookie'] as string[])[0]).split(';')[0]!;
  assert.equal((await get(port, '/', `127.0.0.1:${port}`, { cookie })).status, 200);
  assert.equal((await get(port, '/healthz', `127.0.0.1:${port}`)).status, 200, 'health needs no token');
});

it('no metrics token off loopback: /metrics and /readyz are served as before, with one start-up warning and a doctor finding', async () => {
  const port = running.http.port;
  assert.equal((await get(port, '/metrics', `10.0.0.7:${port}`)).status, 200, 'an existing Prometheus scrape keeps working');
  const warnings = printed.filter((l) => /\/metrics/.test(l));
  assert.equal(warnings.length, 1, printed.join('\n'));
  assert.match(warnings[0]!, /^turnbridge: warning: \/metrics and the \/readyz details are open to anyone who reaches HOST 0\.0\.0\.0 .*TURNBRIDGE_METRICS_TOKEN_FILE/);
  await running.checks.done;
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  const body = await res.json() as { platforms: unknown[]; checks: { warnings: Array<{ section: string; text: string; fix: string }> } };
  assert.ok(body.platforms.length > 0, 'the details are shown');
  const finding = body.checks.warnings.find((w) => /\/metrics/.test(w.text));
  assert.ok(finding, JSON.stringify(body.checks));
  assert.equal(finding.section, 'Security');
  assert.match(finding.fix, /credentials_file/);
});
