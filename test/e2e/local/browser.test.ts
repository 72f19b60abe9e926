// The local chat page in a real browser: Debian's Chromium driven by playwright-core against the
// real wiring of `npm start` (startTurnbridge) with the demo profile, on 127.0.0.1 port 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startTurnbridge, type RunningTurnbridge } from '../../../src/main.js';
import { silentLogger } from '../../../src/log.js';

const CHROMIUM = process.env.TURNBRIDGE_CHROMIUM ?? '/usr/bin/chromium';
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const DEMO = join(ROOT, 'profiles/demo/profile.yaml');
const SCREENSHOT = join(tmpdir(), 'turnbridge-local-page.png');
/** The pending prompt alone, and the reason dialog (docs/local-page-prompt.png is taken from these). */
const PROMPT_SHOT = join(tmpdir(), 'turnbridge-local-prompt.png');
const DIALOG_SHOT = join(tmpdir(), 'turnbridge-local-dialog.png');
/** Safety net for each wait on a loaded 2-core machine; never an assertion about speed. */
const WAIT = { timeout: 45_000 };

const sessionOf = (text: string) => /session (demo-[0-9a-f]{16})/.exec(text)?.[1];
const turnOf = (text: string) => Number(/This is turn (\d+)/.exec(text)?.[1]);

async function send(page: Page, text: string): Promise<void> {
  const before = await page.getByTestId('bot-message').count();
  await page.getByTestId('message-input').fill(text);
  await page.getByTestId('message-input').press('Enter');
  // The reply's live message appears (progress at once), after the user's own message.
  await page.getByTestId('user-message').filter({ hasText: text }).waitFor(WAIT);
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="bot-message"]').length > n, before, WAIT);
}

/**
 * What the page shows after the last user message, in order: 'prompt' for a permission prompt,
 * else the answer text of a reply message (a reply continues below a prompt in a new message).
 */
function turnItems(): string[] {
  const nodes = [...document.querySelectorAll('[data-testid="user-message"], [data-testid="bot-message"], [data-testid="permission-prompt"]')] as HTMLElement[];
  let start = 0;
  nodes.forEach((n, i) => { if (n.dataset.testid === 'user-message') start = i + 1; });
  return nodes.slice(start).map((n) => (n.dataset.testid === 'permission-prompt'
    ? 'prompt'
    : n.querySelector('[data-testid="bot-text"]')?.textContent ?? ''));
}

/** The answer of the last turn as the browser shows it: its reply messages' texts, in order. */
async function lastReply(page: Page): Promise<string> {
  const items = await page.evaluate(turnItems);
  return items.filter((x) => x !== 'prompt').join('\n');
}

async function waitForReplyText(page: Page, pattern: RegExp): Promise<string> {
  // the same walk as turnItems (page.waitForFunction cannot call a helper, and the page's CSP forbids eval)
  await page.waitForFunction((src) => {
    const nodes = [...document.querySelectorAll('[data-testid="user-message"], [data-testid="bot-message"]')] as HTMLElement[];
    let start = 0;
    nodes.forEach((n, i) => { if (n.dataset.testid === 'user-message') start = i + 1; });
    const text = nodes.slice(start).map((n) => n.querySelector('[data-testid="bot-text"]')?.textContent ?? '').join('\n');
    return new RegExp(src).test(text);
  }, pattern.source, WAIT);
  return lastReply(page);
}

async function waitForFinished(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('[data-testid="bot-message"]');
    const last = all[all.length - 1] as HTMLElement | undefined;
    return last !== undefined && last.dataset.running === 'false';
  }, undefined, WAIT);
}

/** The prompt after the first `seen` ones, once it shows (after `rules clear`, the agent asks again). */
async function nextPrompt(page: Page, seen: number) {
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="permission-prompt"]').length > n, seen, WAIT);
  return page.getByTestId('permission-prompt').nth(seen);
}

/** Record every distinct answer text the page shows, to see the reply grow, and how many Stop buttons show at each change. */
async function recordGrowth(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: string[] = [];
    const thinking: string[] = [];
    const stops: number[] = [];
    Object.assign(window, { __texts: seen, __thinking: thinking, __stops: stops });
    new MutationObserver(() => {
      stops.push(document.querySelectorAll('[data-testid="stop-button"]').length);
      const all = document.querySelectorAll('[data-testid="bot-message"]');
      const last = all[all.length - 1] as HTMLElement | undefined;
      const text = last?.querySelector('[data-testid="bot-text"]')?.textContent ?? '';
      const entry = `${last?.dataset.id}|${text}`;
      if (text && seen[seen.length - 1] !== entry) seen.push(entry);
      const th = document.querySelector('[data-testid="bot-thinking"]');
      if (th) thinking.push(`${getComputedStyle(th).fontStyle}|${th.textContent}`);
    }).observe(document.getElementById('log')!, { childList: true, subtree: true, characterData: true });
  });
}

test('the local page: streamed reply, the five prompt choices, rules, Stop, /new, and one conversation per tab', async (t) => {
  assert.ok(existsSync(CHROMIUM),
    `Chromium is not installed at ${CHROMIUM}: the browser test needs Debian's chromium package ` +
    '(apt-get install -y chromium; .ci/run installs it when missing), or set TURNBRIDGE_CHROMIUM to its path.');
  assert.ok(existsSync(DEMO), `the demo profile is missing at ${DEMO}`);

  const dataDir = mkdtempSync(join(tmpdir(), 'tb-browser-data-'));
  const userDataDir = mkdtempSync(join(tmpdir(), 'tb-browser-profile-'));
  // The demo's session files must outlive a turn: in the agent box /tmp is the turn's own, so they
  // live in the agent workspace (until each conversation gets its own HOME, where the demo keeps them by default).
  const demoRoot = mkdtempSync(join(tmpdir(), 'tb-browser-demo-'));
  const workspace = join(demoRoot, 'ws');
  const demoState = join(workspace, '.demo-sessions');
  mkdirSync(demoState, { recursive: true });
  // The demo profile expands these from the bridge's environment (process.env) into the agent's.
  process.env.DEMO_DELAY_MS = '300'; // slower than the page's 250 ms edit interval, so growth is visible
  process.env.DEMO_LONG_MS = '60000';
  process.env.DEMO_STATE_DIR = demoState;

  let running: RunningTurnbridge | undefined;
  let context: BrowserContext | undefined;
  t.after(async () => {
    await context?.close().catch(() => {});
    await running?.shutdown();
    for (const dir of [dataDir, userDataDir, demoRoot]) rmSync(dir, { recursive: true, force: true });
  });

  // The agent box is off here: its private /tmp would hide DEMO_STATE_DIR (under tmpdir), and the
  // demo counts its turns there (the box has its own tests: test/e2e sandbox and spy tests).
  running = await startTurnbridge({
    env: { HOST: '127.0.0.1', PORT: '0', TURNBRIDGE_DATA_DIR: dataDir, TURNBRIDGE_WORKSPACE: workspace, TURNBRIDGE_PROFILE: DEMO, TURNBRIDGE_CONFIG: '', LOG_LEVEL: 'silent', TURNBRIDGE_SANDBOX: 'off' },
    logger: silentLogger,
    print: () => {},
  });
  assert.match(running.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  assert.deepEqual(running.platforms.map((p) => p.name), ['local']);

  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    viewport: { width: 1100, height: 900 },
    // a 12-hour locale: the page's times must still read 24-hour HH:MM:SS, as the agents' do
    locale: 'en-US',
  });
  const page = context.pages()[0] ?? await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(running.url);
  await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor(WAIT);
  // The page names its commands as the README does: `new`, not `/new`.
  assert.match(await page.getByTestId('message-input').getAttribute('placeholder') ?? '', /\bnew starts a fresh session/);
  assert.doesNotMatch(await page.locator('body').innerText(), /\/new/);

  // 1. A message: the reply grows while streaming, then finishes; the agent asks permission.
  await recordGrowth(page);
  await send(page, 'hello there');
  const prompt = page.getByTestId('permission-prompt').last();
  await prompt.waitFor(WAIT);
  assert.equal(await prompt.getAttribute('data-state'), 'pending');
  assert.match(await prompt.getByTestId('prompt-input').innerText(), /date/);
  // The agent's description is markdown: `date` shows as code, not between raw backticks.
  assert.deepEqual(await prompt.getByTestId('prompt-description').locator('code').allInnerTexts(), ['date']);
  assert.doesNotMatch(await prompt.getByTestId('prompt-description').innerText(), /`/);
  let text = await waitForReplyText(page, /You said: hello there/);
  assert.equal(turnOf(text), 1);
  const firstSession = sessionOf(text);
  assert.ok(firstSession, `no session id in ${JSON.stringify(text)}`);
  // The prompt says everything before the click: the rule, who may decide, a live countdown.
  assert.equal(await prompt.getByTestId('prompt-rule').innerText(), "“Allow for this thread” adds Bash(date) for your requests, “Allow for everyone in this thread” for anyone's here");
  assert.equal(await prompt.getByTestId('prompt-rule-meaning').innerText(), 'The rule matches: exactly this command, byte for byte');
  assert.equal(await prompt.getByTestId('prompt-deciders').innerText(), 'you may decide');
  assert.match(await prompt.getByTestId('prompt-countdown').innerText(), /^\d+:\d\d$/);
  assert.deepEqual(await prompt.locator('.actions button').allInnerTexts(), ['Allow once', 'Allow for this thread', 'Allow for everyone in this thread', 'Edit and allow', 'Deny', 'Deny with reason']);
  await prompt.screenshot({ path: PROMPT_SHOT });
  // While it waits: one live status and one Stop, on the part below the prompt; the part above is plain answer.
  const waiting = page.locator('[data-testid="permission-prompt"] ~ [data-testid="bot-message"]').last();
  await waiting.getByTestId('bot-status').filter({ hasText: 'waiting for a decision…' }).waitFor(WAIT);
  assert.equal(await page.getByTestId('stop-button').count(), 1);
  assert.equal(await waiting.getByTestId('stop-button').count(), 1);
  assert.equal(await page.getByTestId('bot-status').count(), 1);
  // 2. Allow for this thread: the prompt shows who decided what and when; the agent ran the tool.
  await prompt.getByTestId('allow-thread-button').click();
  await prompt.getByTestId('prompt-state').waitFor(WAIT);
  assert.equal(await prompt.getAttribute('data-state'), 'allowed');
  assert.match(await prompt.getByTestId('prompt-state').innerText(), /^Allowed for this thread by you at \d\d:\d\d:\d\d · rule Bash\(date\) for your requests$/);
  text = await waitForReplyText(page, /Permission granted/);
  await waitForFinished(page);
  assert.equal(await page.getByTestId('bot-message').last().getByTestId('stop-button').count(), 0, 'no Stop once finished');
  // Chronology: the answer so far, the prompt, then the rest of the answer in a new message below it.
  const order = await page.evaluate(turnItems);
  assert.equal(order.length, 3, `answer, prompt, answer: ${JSON.stringify(order)}`);
  assert.match(order[0]!, /You said: hello there/);
  assert.equal(order[1], 'prompt');
  assert.match(order[2]!, /Permission granted/);
  assert.doesNotMatch(order[0]!, /Permission granted/);
  // Each message grew edit by edit (streamed body; then the tool's outcome after the click).
  const texts = await page.evaluate(() => (window as unknown as { __texts: string[] }).__texts);
  const byMessage = new Map<string, string[]>();
  for (const entry of texts) {
    const at = entry.indexOf('|');
    const id = entry.slice(0, at);
    byMessage.set(id, [...(byMessage.get(id) ?? []), entry.slice(at + 1)]);
  }
  const growing = [...byMessage.values()][0] ?? [];
  assert.ok(growing.length >= 2, `the reply should be seen growing, saw ${JSON.stringify(growing)}`);
  for (const views of byMessage.values()) {
    for (let i = 1; i < views.length; i++) {
      assert.ok(views[i]!.startsWith(views[i - 1]!.trimEnd()), `each view extends the last: ${JSON.stringify(views.slice(i - 1, i + 1))}`);
    }
  }
  // Thinking was shown apart from the answer, in italics.
  const thinking = await page.evaluate(() => (window as unknown as { __thinking: string[] }).__thinking);
  assert.ok(thinking.some((s) => /^italic\|(Reading your message|Thinking about)/.test(s)), `thinking seen: ${JSON.stringify(thinking.slice(0, 3))}`);
  assert.ok(texts.every((s) => !/Reading your message|Thinking about/.test(s)), 'thinking never mixed into the answer');

  // Markdown is rendered: the agent's `date` is inline code.
  assert.deepEqual(await page.getByTestId('bot-text').last().locator('code').allInnerTexts(), ['date']);

  // 3. The next message continues the session (turn 2): the rule answers, no prompt, a muted line says so.
  const prompts = await page.getByTestId('permission-prompt').count();
  await send(page, 'and again');
  text = await waitForReplyText(page, /auto-allowed Bash: date, rule set by @you/);
  assert.equal(turnOf(text), 2);
  assert.equal(sessionOf(text), firstSession);
  assert.match(text, /Permission granted/);
  await waitForFinished(page);
  assert.equal(await page.getByTestId('permission-prompt').count(), prompts, 'no prompt');
  assert.equal(await page.getByTestId('bot-text').last().locator('em').filter({ hasText: 'auto-allowed' }).count(), 1, 'the line is muted (italic)');
  // `rules` lists the rule; `rules clear` ends it.
  await send(page, 'rules');
  await waitForReplyText(page, /Bash\(date\)`? for @you, set by @you/);
  await send(page, 'rules clear');
  await waitForReplyText(page, /Removed 1 permission rule/);

  // 4. Deny with a reason: a dialog; an empty reason is refused inside it; the agent gets the reason.
  await send(page, 'why not');
  const p3 = await nextPrompt(page, prompts);
  await p3.getByTestId('deny-reason-button').click();
  const dialog = page.getByTestId('prompt-form');
  await dialog.waitFor(WAIT);
  assert.equal(await dialog.getAttribute('data-kind'), 'reason');
  await dialog.getByTestId('form-submit').click();
  await dialog.getByTestId('form-error').filter({ hasText: 'Write a reason' }).waitFor(WAIT);
  await dialog.getByTestId('form-input').fill('not on a Friday');
  await page.screenshot({ path: DIALOG_SHOT });
  await dialog.getByTestId('form-submit').click();
  await dialog.waitFor({ ...WAIT, state: 'detached' });
  text = await waitForReplyText(page, /Permission denied \(not on a Friday\)/);
  assert.equal(turnOf(text), 3);
  assert.match(await p3.getByTestId('prompt-state').innerText(), /^Denied by you at \d\d:\d\d:\d\d: “not on a Friday”$/);
  await waitForFinished(page);

  // 5. Edit and allow: the dialog holds the command; the agent receives the edited input.
  await send(page, 'edit it');
  const p4 = await nextPrompt(page, prompts + 1);
  await p4.getByTestId('edit-button').click();
  const editDialog = page.getByTestId('prompt-form');
  await editDialog.waitFor(WAIT);
  assert.equal(await editDialog.getByTestId('form-input').inputValue(), 'date');
  await editDialog.getByTestId('form-input').fill('date -u');
  await editDialog.getByTestId('form-submit').click();
  text = await waitForReplyText(page, /the input was changed to "date -u"/);
  assert.equal(turnOf(text), 4);
  assert.match(await p4.getByTestId('prompt-state').innerText(), /^Allowed with edited input by you/);
  assert.equal(await p4.getByTestId('prompt-input').innerText(), 'date -u', 'the prompt shows what was allowed');
  await waitForFinished(page);

  // 4. A long turn, stopped with the Stop button while it streams.
  await send(page, 'please take long');
  await waitForReplyText(page, /tick 2\//);
  const longReply = page.getByTestId('bot-message').last();
  await longReply.getByTestId('stop-button').click();
  await waitForFinished(page);
  const stoppedText = await lastReply(page);
  assert.match(stoppedText, /stopped by @?you/);
  assert.equal(turnOf(stoppedText), 5);
  assert.doesNotMatch(stoppedText, /tick 60\/60/);

  // 5. /new resets the session: the next turn is turn 1 of a new session.
  const replies = await page.getByTestId('bot-message').count();
  await page.getByTestId('message-input').fill('/new');
  await page.getByTestId('message-input').press('Enter');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="bot-message"]').length > n, replies, WAIT);
  await send(page, 'fresh start');
  text = await waitForReplyText(page, /You said: fresh start/);
  assert.equal(turnOf(text), 1);
  assert.notEqual(sessionOf(text), firstSession);
  const prompt3 = page.getByTestId('permission-prompt').last();
  await prompt3.getByTestId('allow-button').click();
  await waitForReplyText(page, /Permission granted/);
  assert.match(await prompt3.getByTestId('prompt-state').innerText(), /^Allowed once by you/);
  await waitForFinished(page);

  // Across these turns (prompts, rules, Stop), never two Stop buttons at once.
  const stops = await page.evaluate(() => (window as unknown as { __stops: number[] }).__stops);
  assert.equal(Math.max(...stops), 1, `never two Stop buttons at once (at each change: ${stops.join('')})`);

  // A reload keeps what the tab showed (same conversation, snapshot over SSE).
  const shownBefore = await page.getByTestId('bot-message').count();
  await page.reload();
  await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor(WAIT);
  assert.equal(await page.getByTestId('bot-message').count(), shownBefore);

  await page.screenshot({ path: SCREENSHOT, fullPage: true });

  // 6. Another tab is another conversation with its own session.
  const other = await context.newPage();
  await other.goto(running.url);
  await other.getByTestId('connection').filter({ hasText: 'connected' }).waitFor(WAIT);
  assert.notEqual(await other.getByTestId('page-id').innerText(), await page.getByTestId('page-id').innerText());
  assert.equal(await other.getByTestId('bot-message').count(), 0, 'a new tab starts empty');
  await send(other, 'hi from tab two');
  text = await waitForReplyText(other, /You said: hi from tab two/);
  assert.equal(turnOf(text), 1);
  await other.getByTestId('permission-prompt').last().getByTestId('deny-button').click();
  await waitForFinished(other);
  // "Allow for everyone in this thread" is its own choice: the rule covers anyone's requests here.
  await send(other, 'for everyone');
  const everyone = other.getByTestId('permission-prompt').last();
  await everyone.getByTestId('allow-thread-all-button').click();
  await everyone.getByTestId('prompt-state').waitFor(WAIT);
  assert.match(await everyone.getByTestId('prompt-state').innerText(), /^Allowed for everyone in this thread by you at \d\d:\d\d:\d\d · rule Bash\(date\) for anyone's requests$/);
  await waitForFinished(other);
  const otherPrompts = await other.getByTestId('permission-prompt').count();
  await send(other, 'once more');
  text = await waitForReplyText(other, /auto-allowed Bash: date, rule set by @you for everyone in this thread/);
  await waitForFinished(other);
  assert.equal(await other.getByTestId('permission-prompt').count(), otherPrompts, 'no prompt');

  assert.deepEqual(pageErrors, [], 'no script errors in the page');
});
