// `approvals: approvers` on the local page in a real browser (Debian's Chromium, playwright-core)
// against the real wiring of `npm start`: the prompt says an approver must decide, the author's
// own Allow is refused (a toast says why) and the prompt stays open; the author's Deny counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { startTurnbridge, type RunningTurnbridge } from '../../../src/main.js';
import { silentLogger } from '../../../src/log.js';

const CHROMIUM = process.env.TURNBRIDGE_CHROMIUM ?? '/usr/bin/chromium';
const DEMO = join(resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..'), 'profiles/demo/profile.yaml');
/** Safety net for each wait on a loaded 2-core machine; never an assertion about speed. */
const WAIT = { timeout: 45_000 };

test('local page, approvals: approvers: "an approver must decide"; the author\'s Allow is refused, Deny taken', async (t) => {
  assert.ok(existsSync(CHROMIUM), `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium), or set TURNBRIDGE_CHROMIUM`);
  const dataDir = mkdtempSync(join(tmpdir(), 'tb-approvals-page-'));
  const userDataDir = mkdtempSync(join(tmpdir(), 'tb-approvals-browser-'));
  const demoState = mkdtempSync(join(tmpdir(), 'tb-approvals-demo-'));
  process.env.DEMO_STATE_DIR = demoState;
  let running: RunningTurnbridge | undefined;
  let context: BrowserContext | undefined;
  t.after(async () => {
    await context?.close().catch(() => {});
    await running?.shutdown();
    for (const dir of [dataDir, userDataDir, demoState]) rmSync(dir, { recursive: true, force: true });
  });
  running = await startTurnbridge({
    env: {
      HOST: '127.0.0.1', PORT: '0', TURNBRIDGE_DATA_DIR: dataDir, TURNBRIDGE_PROFILE: DEMO, TURNBRIDGE_CONFIG: '', LOG_LEVEL: 'silent',
      TURNBRIDGE_APPROVALS: 'approvers', TURNBRIDGE_ADMINS: 'slack:U0BOSS',
    },
    logger: silentLogger,
    print: () => {},
  });
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? await context.newPage();
  await page.goto(running.url);
  await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor(WAIT);
  await page.getByTestId('message-input').fill('hello there');
  await page.getByTestId('message-input').press('Enter');
  const prompt = page.getByTestId('permission-prompt').last();
  await prompt.waitFor(WAIT);
  assert.equal(await prompt.getByTestId('prompt-deciders').innerText(), 'an approver must decide; you may only deny');
  await prompt.getByTestId('allow-button').click();
  await page.getByTestId('toast').filter({ hasText: 'An approver must allow this' }).waitFor(WAIT);
  assert.equal(await prompt.getAttribute('data-state'), 'pending', 'still pending after the author\'s Allow');
  await prompt.getByTestId('deny-button').click();
  await page.locator('[data-testid="permission-prompt"][data-state="denied"]').waitFor(WAIT);
});
