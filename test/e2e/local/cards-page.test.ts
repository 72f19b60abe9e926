// Cards on the local page in a real browser (issue 26): Debian's Chromium driven by playwright-core
// against the real wiring of `npm start` (startTurnbridge), with the card test agent
// (test/fixtures/card-agents) asking as the claude-code wrapper does. A question of 3 options
// answered by a click (the agent gets the exact answers), a multi-select's checkboxes and Submit,
// "Other…" in a dialog, a question that times out (a route's 1 s question_timeout_secs), a plan
// approved and one sent back with feedback, `use` switching a tab's profile. The page has one person (the local user): a stranger's
// click is tested on Slack and Discord (test/e2e/*/cards.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { startTurnbridge, type RunningTurnbridge } from '../../../src/main.js';
import { silentLogger } from '../../../src/log.js';
import { COLOR, FEATURES } from '../../fixtures/card-agents/questions.mjs';

const CHROMIUM = process.env.TURNBRIDGE_CHROMIUM ?? '/usr/bin/chromium';
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const CARDS = join(ROOT, 'test/fixtures/card-agents/profile.yaml');
const PLAN = join(ROOT, 'test/fixtures/card-agents/plan.yaml');
const OTHER = join(ROOT, 'test/fixtures/card-agents/other.yaml');
/** The cards as the page draws them (docs/approvals.md is made from these by scripts/docs-screenshots.ts). */
export const CARD_SHOTS = { question: join(tmpdir(), 'turnbridge-card-question.png'), plan: join(tmpdir(), 'turnbridge-card-plan.png') };
/** Safety net for each wait on a loaded 2-core machine; never an assertion about speed. */
const WAIT = { timeout: 45_000 };
const SLOW_PAGE = 'tab-slowcards';

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('message-input').fill(text);
  await page.getByTestId('message-input').press('Enter');
  await page.getByTestId('user-message').filter({ hasText: text }).last().waitFor(WAIT);
}

/** The card after the first `seen` cards (question or plan), once it shows. */
async function nextCard(page: Page, kind: 'question-card' | 'plan-card', seen: number): Promise<Locator> {
  await page.waitForFunction(([k, n]) => document.querySelectorAll(`[data-testid="${k}"]`).length > (n as number), [kind, seen] as const, WAIT);
  return page.getByTestId(kind).nth(seen);
}

/** The text of the bot messages after the last user message, once it matches. */
async function replyMatching(page: Page, pattern: RegExp): Promise<string> {
  await page.waitForFunction((src) => {
    const nodes = [...document.querySelectorAll('[data-testid="user-message"], [data-testid="bot-message"]')] as HTMLElement[];
    let start = 0;
    nodes.forEach((n, i) => { if (n.dataset.testid === 'user-message') start = i + 1; });
    return new RegExp(src, 'm').test(nodes.slice(start).map((n) => n.querySelector('[data-testid="bot-text"]')?.textContent ?? '').join('\n'));
  }, pattern.source, WAIT);
  return page.evaluate(() => {
    const nodes = [...document.querySelectorAll('[data-testid="user-message"], [data-testid="bot-message"]')] as HTMLElement[];
    let start = 0;
    nodes.forEach((n, i) => { if (n.dataset.testid === 'user-message') start = i + 1; });
    return nodes.slice(start).map((n) => n.querySelector('[data-testid="bot-text"]')?.textContent ?? '').join('\n');
  });
}
const answersIn = (text: string) => JSON.parse(/answered updated_input=(.*)$/m.exec(text)![1]!);

test('the local page: question cards (a click, checkboxes, Other…, a timeout) and plan cards (approve, keep planning)', async (t) => {
  assert.ok(existsSync(CHROMIUM), `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium), or set TURNBRIDGE_CHROMIUM`);
  const dataDir = mkdtempSync(join(tmpdir(), 'tb-cards-page-'));
  const userDataDir = mkdtempSync(join(tmpdir(), 'tb-cards-browser-'));
  const configFile = join(dataDir, 'turnbridge.yaml');
  // One page (its id fixed below) has a route whose cards wait 1 s: the expiry, seen in the browser.
  writeFileSync(configFile, `default_profile: ${CARDS}\nprofiles: [${PLAN}, ${OTHER}]\nroutes:\n  - platform: local\n    channel: ${SLOW_PAGE}\n    profile: ${CARDS}\n    question_timeout_secs: 1\n`);
  let running: RunningTurnbridge | undefined;
  let context: BrowserContext | undefined;
  t.after(async () => {
    await context?.close().catch(() => {});
    await running?.shutdown();
    for (const dir of [dataDir, userDataDir]) rmSync(dir, { recursive: true, force: true });
  });
  running = await startTurnbridge({
    env: { HOST: '127.0.0.1', PORT: '0', TURNBRIDGE_DATA_DIR: join(dataDir, 'data'), TURNBRIDGE_CONFIG: configFile, LOG_LEVEL: 'silent', TURNBRIDGE_SANDBOX: 'off' },
    logger: silentLogger,
    print: () => {},
  });
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1100, height: 900 },
  });
  const page = context.pages()[0] ?? await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(running.url);
  await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor(WAIT);

  // 1. A question of 3 options: each a button with its description; a click sends exactly the answer.
  await send(page, 'color');
  const q1 = await nextCard(page, 'question-card', 0);
  assert.equal(await q1.getAttribute('data-state'), 'pending');
  assert.match(await q1.locator('.card-title').innerText(), /Question — Claude asks: Which color should the button be\?/);
  assert.deepEqual(await q1.getByTestId('card-option').allInnerTexts(), ['Red\nWarm and loud', 'Blue\nCalm', 'Green\nNatural']);
  assert.equal(await q1.getByTestId('card-answerers').innerText(), 'you may answer');
  assert.match(await q1.getByTestId('card-countdown').innerText(), /^\d+:\d\d$/);
  await q1.screenshot({ path: CARD_SHOTS.question });
  await q1.getByTestId('card-option').filter({ hasText: 'Blue' }).click();
  assert.deepEqual(answersIn(await replyMatching(page, /answered updated_input=/)), { questions: [COLOR], answers: { [COLOR.question]: 'Blue' } });
  await q1.getByTestId('card-state').waitFor(WAIT);
  assert.equal(await q1.getByTestId('card-answer').innerText(), '✓ Blue — chosen by you');
  assert.match(await q1.getByTestId('card-state').innerText(), /^Answered by you at \d\d:\d\d:\d\d$/);
  assert.equal(await q1.getByTestId('card-option').count(), 0, 'no choices once answered');

  // 2. A multi-select: tick two, Submit; the labels joined with ", " in the card's order.
  await send(page, 'features');
  const q2 = await nextCard(page, 'question-card', 1);
  await q2.getByTestId('card-checkbox').nth(2).check();
  await q2.getByTestId('card-checkbox').nth(0).check();
  await q2.getByTestId('card-submit').click();
  assert.deepEqual(answersIn(await replyMatching(page, /answered updated_input=/)).answers, { [FEATURES.question]: 'Search, Dark mode' });

  // 3. Other…: a dialog showing the question; an empty answer is refused in it; the text is the answer.
  await send(page, 'color');
  const q3 = await nextCard(page, 'question-card', 2);
  await q3.getByTestId('card-other').click();
  const dialog = page.getByTestId('prompt-form');
  await dialog.waitFor(WAIT);
  assert.equal(await dialog.getAttribute('data-kind'), 'other');
  assert.equal(await dialog.getByTestId('form-sub').innerText(), COLOR.question);
  await dialog.getByTestId('form-submit').click();
  await dialog.getByTestId('form-error').filter({ hasText: 'Write an answer' }).waitFor(WAIT);
  await dialog.getByTestId('form-input').fill('Teal, like the sea');
  await dialog.getByTestId('form-submit').click();
  await dialog.waitFor({ ...WAIT, state: 'detached' });
  assert.deepEqual(answersIn(await replyMatching(page, /answered updated_input=/)).answers, { [COLOR.question]: 'Teal, like the sea' });
  await q3.getByTestId('card-state').waitFor(WAIT);
  assert.equal(await q3.getByTestId('card-answer').innerText(), '✓ “Teal, like the sea” — written by you');

  // 4. A plan: its text in the reply above the card; Approve.
  await send(page, 'plan');
  const p1 = await nextCard(page, 'plan-card', 0);
  assert.match(await p1.getByTestId('plan-intro').innerText(), /^The plan is above\. “Approve” lets the agent start; “Keep planning” sends it back with your feedback\.$/);
  await replyMatching(page, /Read the code/);
  // the plan's markdown is rendered in the reply, above the card
  assert.deepEqual(await page.getByTestId('bot-text').filter({ hasText: 'Read the code' }).last().locator('ol li').allInnerTexts(), ['Read the code', 'Fix the bug', 'Run the tests']);
  await p1.screenshot({ path: CARD_SHOTS.plan });
  await p1.getByTestId('plan-approve').click();
  await replyMatching(page, /^approved$/);
  await p1.getByTestId('card-state').waitFor(WAIT);
  assert.match(await p1.getByTestId('card-state').innerText(), /^Plan approved by you at \d\d:\d\d:\d\d$/);

  // 5. A plan sent back: Keep planning… opens a dialog; the feedback is what the agent reads.
  await send(page, 'plan');
  const p2 = await nextCard(page, 'plan-card', 1);
  await p2.getByTestId('plan-revise').click();
  const feedback = page.getByTestId('prompt-form');
  await feedback.waitFor(WAIT);
  assert.equal(await feedback.getAttribute('data-kind'), 'feedback');
  await feedback.getByTestId('form-input').fill('Write the test first.');
  await feedback.getByTestId('form-submit').click();
  await replyMatching(page, /^revise: Write the test first\.$/);
  await p2.getByTestId('card-state').waitFor(WAIT);
  assert.match(await p2.getByTestId('card-state').innerText(), /^Sent back to keep planning by you at \d\d:\d\d:\d\d: “Write the test first\.”$/);

  // 6. A question nobody answers (this page's route waits 1 s): the card and the agent say so.
  const slow = await context.newPage();
  await slow.addInitScript((id) => sessionStorage.setItem('turnbridge.page', id), SLOW_PAGE);
  slow.on('pageerror', (err) => pageErrors.push(err.message));
  await slow.goto(running.url);
  await slow.getByTestId('connection').filter({ hasText: 'connected' }).waitFor(WAIT);
  assert.equal(await slow.getByTestId('page-id').innerText(), SLOW_PAGE);
  await send(slow, 'color');
  const expired = await nextCard(slow, 'question-card', 0);
  await replyMatching(slow, /denied: No one answered within 1 s: the question expired unanswered\./);
  await expired.getByTestId('card-state').waitFor(WAIT);
  assert.match(await expired.getByTestId('card-state').innerText(), /^Not answered in time at \d\d:\d\d:\d\d — no one answered within 1 s: the agent was told so$/);

  // 7. use: a tab lists its profiles and switches; the same agent keeps the session, another starts a new one.
  const third = await context.newPage();
  third.on('pageerror', (err) => pageErrors.push(err.message));
  await third.goto(running.url);
  await third.getByTestId('connection').filter({ hasText: 'connected' }).waitFor(WAIT);
  await send(third, 'session');
  const session = /session in=\(none\) now=(sess-[0-9a-f]+) profile=cards/.exec(await replyMatching(third, /session in=/))?.[1];
  assert.ok(session);
  await send(third, 'use');
  assert.match(await replyMatching(third, /use <name>/), /This thread uses cards — asks questions and shows plans as the claude-code wrapper does\. use <name> switches its next messages to:\s*• cards-plan — the cards agent, planning first\s*• other-agent — another CLI \(another agent: a new session\)/);
  await send(third, 'use cards-plan');
  await replyMatching(third, /This thread now uses cards-plan — the cards agent, planning first, from the next message\. The session carries over \(the same agent\)\./);
  await send(third, 'session');
  await replyMatching(third, new RegExp(`session in=${session} now=${session} profile=cards-plan`));
  await send(third, 'use other-agent');
  await replyMatching(third, /It runs another agent than cards-plan: the next message starts a new session\./);
  await send(third, 'session');
  await replyMatching(third, /session in=\(none\) now=sess-[0-9a-f]+ profile=other-agent/);

  assert.deepEqual(pageErrors, []);
});
