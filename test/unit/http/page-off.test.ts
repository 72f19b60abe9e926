/**
 * When the local page is not mounted (Slack or Discord tokens set), `/` tells a person in a
 * browser how to turn it on instead of {"error":"not found"}; /favicon.ico is no 404.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHttpServer } from '../../../src/http/index.js';
import { silentLogger } from '../../../src/log.js';

test('/ without the local page says how to serve it; /favicon.ico answers 204; other paths stay 404 JSON', async (t) => {
  const server = createHttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
  await server.listen();
  t.after(() => server.close());
  const root = await fetch(server.url);
  assert.equal(root.status, 404);
  assert.match(root.headers.get('content-type') ?? '', /^text\/plain/);
  const text = await root.text();
  assert.match(text, /local chat page: with Slack or Discord tokens set it is off/);
  assert.match(text, /turnbridge start --local.*TURNBRIDGE_LOCAL=1/);
  assert.equal((await fetch(`${server.url}favicon.ico`)).status, 204);
  const other = await fetch(`${server.url}nope`);
  assert.deepEqual([other.status, await other.json()], [404, { error: 'not found', path: '/nope' }]);
});
