/**
 * The local page in Debian's Chromium against the real bridge (startTurnbridge, the demo
 * profile): a failed turn's "error: …" line is shown as an outcome (its own style), not as
 * body text; the agent's thinking, cleared by the bridge once the answer streams, stays on the
 * page folded as "thought"; markdown lists are lists; no edit counter; no /favicon.ico 404.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { startTurnbridge, type RunningTurnbridge } from '../../../src/main.js';
import { silentLogger } from '../../../src/log.js';
import { DEMO } from '../../integration/cli/cli-process.js';

const CHROMIUM = process.env.TURNBRIDGE_CHROMIUM ?? '/usr/bin/chromium';
const WAIT = { timeout: 45_000 };

test('the page: the error line styled apart, the thought kept folded, no edit counter, no favicon 404', { skip: existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}` }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tb-page-outcome-'));
  let running: RunningTurnbridge | undefined;
  let context: BrowserContext | undefined;
  t.after(async () => {
    await context?.close().catch(() => {});
    await running?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });
  process.env.DEMO_DELAY_MS = '300'; // slower than the page's 250 ms edit interval: the thinking is shown before the answer
  running = await startTurnbridge({
    env: { HOST: '127.0.0.1', PORT: '0', TURNBRIDGE_DATA_DIR: join(dir, 'data'), TURNBRIDGE_WORKSPACE: join(dir, 'ws'), TURNBRIDGE_PROFILE: DEMO, TURNBRIDGE_CONFIG: '', LOG_LEVEL: 'silent', TURNBRIDGE_SANDBOX: 'off' },
    logger: silentLogger,
    print: () => {},
  });
  context = await chromium.launchPersistentContext(join(dir, 'chromium'), {
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? await context.newPage();
  const notFound: string[] = [];
  page.on('response', (r) => { if (r.status() === 404) notFound.push(r.url()); });
  await page.goto(running.url);
  await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor(WAIT);

  await page.getByTestId('message-input').fill('please fail');
  await page.getByTestId('message-input').press('Enter');
  const outcome = page.getByTestId('bot-outcome');
  await outcome.waitFor(WAIT);
  assert.equal(await outcome.getAttribute('data-tone'), 'error');
  assert.match(await outcome.innerText(), /^error: Demo failure: the message contained "fail"\.$/);
  assert.equal(await outcome.evaluate((n) => getComputedStyle(n).fontWeight), '600', 'styled apart from the body');
  const body = await page.getByTestId('bot-text').last().innerText();
  assert.match(body, /About to fail, as asked\./);

  // The demo thinks before it answers: the thought stays, folded, after the answer streamed.
  await page.getByTestId('message-input').fill('hello');
  await page.getByTestId('message-input').press('Enter');
  await page.getByTestId('bot-thinking').first().waitFor(WAIT);
  const thought = page.getByTestId('bot-thought').first();
  await thought.waitFor(WAIT);
  assert.match(await thought.locator('summary').innerText(), /thought/);
  assert.equal(await page.getByTestId('bot-edits').count(), 0, 'no edit counter');
  assert.deepEqual(notFound, [], 'nothing answered 404 (the icon is inline)');
});
