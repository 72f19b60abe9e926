/**
 * The Host check is always on (DNS rebinding), also on 0.0.0.0 and for /metrics and /readyz;
 * a slow request body cannot hold a socket forever, while a long response stream stays open.
 */
import { strict as assert } from 'node:assert';
import { connect } from 'node:net';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createHostCheck, createHttpServer, isLoopbackBind, type HttpServer } from '../../../src/http/index.js';
import { metricsExposure } from '../../../src/doctor/security-checks.js';
import { silentLogger } from '../../../src/log.js';

function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Host check', () => {
  let http: HttpServer;
  before(async () => {
    http = createHttpServer({ host: '0.0.0.0', port: 0, logger: silentLogger, metrics: () => 'm 1\n', allowedHosts: ['bridge.example.com', '*.corp.example'] });
    http.mount('/page', (_req, res) => { res.end('page'); });
    http.mount('/signed', (_req, res) => { res.end('signed'); }, { signed: true });
    await http.listen();
  });
  after(() => http.close(0));

  it('a rebinding request to 0.0.0.0 (an attacker\'s name as Host) is refused on every route, naming the setting', async () => {
    for (const path of ['/page', '/metrics', '/readyz', '/healthz']) {
      const r = await get(http.port, path, `rebind.attacker.example:${http.port}`);
      assert.equal(r.status, 421, path);
      assert.match(r.body, /TURNBRIDGE_ALLOWED_HOSTS/);
    }
  });

  it('serves loopback names, IP literals and the allowed hosts; signed mounts (Slack events) skip the check', async () => {
    for (const host of [`127.0.0.1:${http.port}`, `localhost:${http.port}`, `[::1]:${http.port}`, '10.0.0.5', 'bridge.example.com', 'a.corp.example']) {
      assert.equal((await get(http.port, '/page', host)).status, 200, host);
    }
    assert.equal((await get(http.port, '/page', 'corp.example.evil.com')).status, 421);
    assert.equal((await get(http.port, '/signed', 'hooks.elsewhere.example')).status, 200);
  });

  it('the predicate: bind names are allowed, IPs always, names only when listed', () => {
    const ok = createHostCheck({ bindHost: 'tb.internal', allowedHosts: [] });
    assert.equal(ok('tb.internal:3000'), true);
    assert.equal(ok('192.168.1.2:3000'), true);
    assert.equal(ok('evil.example'), false);
    assert.equal(ok(undefined), true, 'no Host header: not a browser');
  });
});

describe('loopback bind addresses', () => {
  it('HOST as a name, an IP or a bracketed IPv6 literal: one answer for the local page and for /metrics', () => {
    for (const host of ['127.0.0.1', 'localhost', ' LOCALHOST ', '::1', '[::1]', '127.0.0.2']) {
      assert.equal(isLoopbackBind(host), true, host);
      assert.equal(metricsExposure({ host, metricsToken: undefined }).state, 'loopback', host);
    }
    for (const host of ['0.0.0.0', '::', '[::]', '10.0.0.5', 'example.com']) {
      assert.equal(isLoopbackBind(host), false, host);
      assert.equal(metricsExposure({ host, metricsToken: undefined }).state, 'open', host);
    }
  });
});

describe('request timeouts', () => {
  it('a slow request body is cut off; a long response stream opened before keeps going', async () => {
    const http = createHttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger, requestTimeoutMs: 200, headersTimeoutMs: 200, timeoutCheckIntervalMs: 50 });
    let push: ((s: string) => void) | undefined;
    http.mount('/stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      push = (s) => res.write(s);
    });
    http.mount('/upload', (req, res) => {
      req.resume();
      req.on('end', () => res.end('got it'));
    });
    await http.listen();
    try {
      const streamed: string[] = [];
      const stream = await new Promise<import('node:http').IncomingMessage>((resolve) => request({ host: '127.0.0.1', port: http.port, path: '/stream' }, resolve).end());
      stream.setEncoding('utf8').on('data', (d: string) => streamed.push(d));
      // A client that sends headers and a promise of 1 MB, then nothing.
      const slow = connect(http.port, '127.0.0.1');
      const answer = new Promise<string>((resolve) => {
        let got = '';
        slow.setEncoding('utf8').on('data', (d: string) => (got += d)).on('close', () => resolve(got));
      });
      slow.write(`POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 1048576\r\n\r\nabc`);
      assert.match(await answer, /^HTTP\/1\.1 408/, 'the server gave up on the slow body');
      push!('data: still here\n\n');
      await new Promise<void>((resolve) => {
        const check = () => (streamed.join('').includes('still here') ? resolve() : setImmediate(check));
        check();
      });
      assert.ok(!stream.destroyed, 'the event stream was not cut');
      stream.destroy();
    } finally {
      await http.close(0);
    }
  });
});
