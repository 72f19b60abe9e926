// The local page shows the agent's files: Debian's Chromium (playwright-core) against the real
// wiring of `npm start` (startTurnbridge). The agent leaves a PNG and a CSV in its outbox: the page
// shows the PNG inline (decoded by the browser) and both as links serving their bytes; a huge file
// and a link to a secret are named in the reply, and the secret is never served.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { startTurnbridge, type RunningTurnbridge } from '../../../src/main.js';
import { silentLogger } from '../../../src/log.js';
import { plotPng } from '../../../profiles/demo/plot.mjs';
import { AGENT_PROFILE } from '../slack/turn-rig.js';

const CHROMIUM = process.env.TURNBRIDGE_CHROMIUM ?? '/usr/bin/chromium';
const WAIT = { timeout: 45_000 };

test('the local page: the outbox\'s PNG inline and both files as links with their bytes; refused files named', async (t) => {
  assert.ok(existsSync(CHROMIUM), `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium, or set TURNBRIDGE_CHROMIUM)`);
  const root = mkdtempSync(join(tmpdir(), 'tb-page-outbox-'));
  const userDataDir = mkdtempSync(join(tmpdir(), 'tb-page-outbox-browser-'));
  writeFileSync(join(root, 'token.txt'), 'the-bridge-token');
  let running: RunningTurnbridge | undefined;
  let context: BrowserContext | undefined;
  t.after(async () => {
    await context?.close().catch(() => {});
    await running?.shutdown();
    for (const dir of [root, userDataDir]) rmSync(dir, { recursive: true, force: true });
  });
  writeFileSync(join(root, 'turnbridge.yaml'), 'limits:\n  outbox_bytes: 100000\n');
  running = await startTurnbridge({
    env: {
      HOST: '127.0.0.1', PORT: '0', TURNBRIDGE_DATA_DIR: join(root, 'data'), TURNBRIDGE_WORKSPACE: join(root, 'ws'), TURNBRIDGE_PROFILE: AGENT_PROFILE,
      TURNBRIDGE_CONFIG: join(root, 'turnbridge.yaml'), LOG_LEVEL: 'silent', TURNBRIDGE_SANDBOX: 'off',
    },
    logger: silentLogger,
    print: () => {},
  });
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1000, height: 800 },
  });
  const page = context.pages()[0] ?? await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(running.url);
  await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor(WAIT);

  await page.getByTestId('message-input').fill(`outbox 200000 ${join(root, 'token.txt')}`);
  await page.getByTestId('message-input').press('Enter');
  const files = page.getByTestId('bot-files');
  await files.waitFor(WAIT);
  // below the reply
  const order = await page.evaluate(() => [...document.querySelectorAll('[data-testid="bot-message"], [data-testid="bot-files"]')].map((n) => (n as HTMLElement).dataset.testid));
  assert.deepEqual(order, ['bot-message', 'bot-files']);
  assert.deepEqual(await files.getByTestId('bot-file-link').allInnerTexts(), ['data.csv', 'plot.png']);
  // the PNG, decoded by the browser: the chart's own size
  const img = files.getByTestId('bot-file-image');
  assert.equal(await img.count(), 1, 'only the PNG is an image');
  await page.waitForFunction(() => (document.querySelector('[data-testid="bot-file-image"]') as HTMLImageElement | null)?.complete === true, undefined, WAIT);
  assert.deepEqual(await img.evaluate((el) => [(el as HTMLImageElement).naturalWidth, (el as HTMLImageElement).naturalHeight]), [480, 240]);
  // the links serve the bytes, as the page's own requests (cookie, same origin)
  const got = await page.evaluate(async () => Promise.all([...document.querySelectorAll('[data-testid="bot-file-link"]')].map(async (a) => {
    const res = await fetch((a as HTMLAnchorElement).href);
    return { type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), hex: [...new Uint8Array(await res.arrayBuffer())].map((b) => b.toString(16).padStart(2, '0')).join('') };
  })));
  assert.equal(Buffer.from(got[0]!.hex, 'hex').toString(), 'x,y\n0,1\n1,4\n2,2\n3,8\n4,5\n5,7\n');
  assert.equal(got[0]!.type, 'application/octet-stream', 'anything but an image is a download');
  assert.match(got[0]!.disposition ?? '', /^attachment/);
  assert.deepEqual(Buffer.from(got[1]!.hex, 'hex'), plotPng([1, 4, 2, 8, 5, 7]));
  assert.equal(got[1]!.type, 'image/png');
  // the reply names what was refused
  const reply = await page.getByTestId('bot-message').last().getByTestId('bot-text').innerText();
  assert.match(reply, /Not sent from outbox\/: huge\.bin: 196 KiB, over the limit of 98 KiB a file/);
  assert.match(reply, /Not sent from outbox\/: secret\.txt: a symbolic link/);
  assert.ok(!(await page.content()).includes('the-bridge-token'));
  assert.deepEqual(pageErrors, []);
});
