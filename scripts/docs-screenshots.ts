/**
 * Renders the pictures in docs/slack.md and docs/discord.md from the real code against the
 * project's loopback fakes (nothing leaves the machine), with Debian's Chromium:
 *   doctor-slack.png    `turnbridge doctor` on a good Slack setup and on one missing a scope
 *   doctor-discord.png  the doctor on a Discord app whose Message Content intent is off
 *   slack-reply.png     a demo turn through the real Bolt app and bridge: the fake's thread (the
 *                       answer, the decided prompt, the rest below it), drawn with the local page's renderer
 *   local-page.png      the local chat page (npm start without tokens) after a demo turn
 *   local-page-prompt.png       the same turn while its permission prompt waits (one Stop, below it)
 *   local-page-deny-reason.png  Deny with a reason: the page's dialog
 *   card-*.png          the cards of docs/approvals.md: a Slack question card drawn from the fake's
 *                       blocks; on the local page a question (pending, answered), a multi-select,
 *                       a plan below its text, Keep planning's dialog
 * Run: npm run docs:screenshots   (TURNBRIDGE_CHROMIUM overrides /usr/bin/chromium); `-- cards`: the cards only
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { formatReport, runDoctor } from '../src/doctor/index.js';
import { escapeHtml, renderMarkdown } from '../src/platforms/local/page/markdown.js';
import { MANIFEST_SCOPES, BOT_USER, buttons, contextLines, visibleText } from '../test/fakes/slack/index.js';
import { makeDoctorRig } from '../test/e2e/doctor/doctor-rig.js';
import { DEMO_PROFILE, isPrompt, makeTurnRig } from '../test/e2e/slack/turn-rig.js';
import { startTurnbridge } from '../src/main.js';
import { silentLogger } from '../src/log.js';

const OUT = join(process.cwd(), 'docs/images');
const CHROMIUM = process.env.TURNBRIDGE_CHROMIUM ?? '/usr/bin/chromium';

const terminal = (title: string, blocks: Array<{ command: string; output: string }>) => `<!doctype html><meta charset="utf-8">
<style>body{margin:0;background:#1e1e1e;font:14px/1.45 "DejaVu Sans Mono",monospace;color:#ddd;padding:18px 22px;width:1060px}
h1{font:13px sans-serif;color:#888;margin:0 0 10px}.cmd{color:#8ae234}.ok{color:#8ae234}.bad{color:#ef2929}.warn{color:#fce94f}.fix{color:#aaa}
pre{margin:0 0 18px;white-space:pre-wrap}</style><h1>${escapeHtml(title)}</h1>
${blocks.map((b) => `<pre><span class="cmd">$ ${escapeHtml(b.command)}</span>\n${colour(b.output)}</pre>`).join('')}`;

function colour(text: string): string {
  return text.split('\n').map((l) => {
    const e = escapeHtml(l);
    if (/^\s*✓/.test(l)) return `<span class="ok">${e}</span>`;
    if (/^\s*✗/.test(l)) return `<span class="bad">${e}</span>`;
    if (/^\s*!/.test(l)) return `<span class="warn">${e}</span>`;
    if (/^\s*fix:/.test(l)) return `<span class="fix">${e}</span>`;
    return e;
  }).join('\n');
}

async function doctorText(env: Record<string, string>): Promise<string> {
  return formatReport(await runDoctor({ env })).replaceAll(process.cwd() + '/', '').replaceAll(process.cwd(), '/srv/turnbridge').replace(/\/tmp\/tb-doctor-\w+/g, '/srv/turnbridge');
}

async function doctorPictures(): Promise<{ slack: string; discord: string }> {
  const good = await makeDoctorRig();
  const scopeless = await makeDoctorRig({ slack: { scopes: MANIFEST_SCOPES.filter((s) => s !== 'reactions:write') }, discord: { allowMessageContent: false } });
  try {
    const slackOnly = (env: Record<string, string>) => ({ ...env, DISCORD_TOKEN: '' });
    const discordOnly = (env: Record<string, string>) => ({ ...env, SLACK_BOT_TOKEN: '', TURNBRIDGE_CONFIG: '' });
    return {
      slack: terminal('turnbridge doctor against the fake Slack', [
        { command: 'npx turnbridge doctor', output: await doctorText(slackOnly(good.env)) },
        { command: 'npx turnbridge doctor   # the app lost reactions:write', output: (await doctorText(slackOnly(scopeless.env))).split('\n\n').filter((s) => s.startsWith('Slack') || /checks/.test(s)).join('\n\n') },
      ]),
      discord: terminal('turnbridge doctor against the fake Discord', [
        { command: 'npx turnbridge doctor', output: await doctorText(discordOnly(scopeless.env)) },
      ]),
    };
  } finally {
    await good.close();
    await scopeless.close();
  }
}

/** A Slack-like thread drawn from the fake's messages: markdown blocks through the local page's renderer. */
async function slackReplyPicture(): Promise<string> {
  process.env.DEMO_DELAY_MS = '5';
  const rig = await makeTurnRig({ config: { defaultProfile: DEMO_PROFILE } });
  try {
    const question = 'hello, what can you do?';
    const { ts } = await rig.fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> ${question}` });
    const asked = await rig.fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt', 20_000);
    const allow = buttons(asked).find((b) => b.action_id === 'tb_allow')!;
    await rig.fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_allow', value: allow.value, channel: 'C0GEN', messageTs: asked.ts });
    await rig.finalReply('C0GEN', ts, ts);
    await rig.decidedPrompt('C0GEN', asked.ts);
    // the thread as Slack shows it: the answer so far, the prompt, the rest below it
    const thread = rig.fake.botMessages('C0GEN', ts).filter((m) => Number(m.ts) > Number(ts));
    const msg = (who: string, body: string, extra = '') => `<div class="m"><div class="av">${who[0]}</div><div><b>${who}</b> <span class="t">10:42</span><div class="b">${body}</div>${extra}</div></div>`;
    // No colour-emoji font here: Slack's :shortcodes: are dropped rather than drawn as boxes.
    // Slack's <!date^…|fallback> is drawn as its fallback text.
    const ctx = (lines: string[]) => lines.map((l) => `<div class="ctx">${renderMarkdown(l.replace(/:[a-z_]+:/g, '').replace(/<@U0ANA>/g, '@ana').replace(/<!date\^\d+\^[^|>]*\|([^>]+)>/g, '$1').trim())}</div>`).join('');
    const drawn = (m: (typeof thread)[number]): string => isPrompt(m)
      ? msg('turnbridge', m.blocks.filter((b) => b.type === 'section').map((b) => renderMarkdown(String(b.text?.text ?? '').replace(/:[a-z_]+:\s*/g, ''))).join(''), ctx(contextLines(m)))
      : msg('turnbridge', renderMarkdown(visibleText(m)), ctx(contextLines(m)));
    return `<!doctype html><meta charset="utf-8"><style>
body{font:15px/1.46 Lato,"DejaVu Sans",sans-serif;margin:0;padding:16px 20px;width:760px;background:#fff;color:#1d1c1d}
.h{font-weight:700;border-bottom:1px solid #ddd;padding-bottom:8px;margin-bottom:10px}.m{display:flex;gap:10px;margin:10px 0}
.av{width:36px;height:36px;border-radius:6px;background:#4a154b;color:#fff;display:flex;align-items:center;justify-content:center;font-weight:700;flex:none}
.t{color:#616061;font-size:12px}.b pre{background:#f8f8f8;border:1px solid #ddd;border-radius:4px;padding:8px;overflow:auto}.b p{margin:4px 0}
.ctx{color:#616061;font-size:13px}.btn{display:inline-block;border:1px solid #bbb;border-radius:4px;padding:3px 12px;margin:6px 6px 0 0;font-weight:700}
.btn.primary{background:#007a5a;color:#fff;border-color:#007a5a}.btn.danger{color:#e01e5a;border-color:#e01e5a}</style>
<div class="h"># general › Thread</div>
${msg('ana', escapeHtml(`@turnbridge ${question}`))}
${thread.map(drawn).join('\n')}`;
  } finally {
    await rig.close();
  }
}

/**
 * The cards of docs/approvals.md (issue 26): a Slack thread with a question card drawn from the
 * fake's blocks (sections, buttons, checkboxes, context lines), and the local page with the card
 * test agent (test/fixtures/card-agents), driven as a person would.
 */
async function cardPictures(browser: Browser, tmp: string): Promise<void> {
  const cards = join(process.cwd(), 'test/fixtures/card-agents/profile.yaml');
  const rig = await makeTurnRig({ config: { defaultProfile: cards } });
  try {
    const { ts } = await rig.fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> two` });
    const card = await rig.fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the card', 20_000);
    const text = (t: string) => renderMarkdown(t.replace(/:[a-z_]+:\s*/g, '').replace(/<@U0ANA>/g, '@ana').replace(/<!date\^\d+\^[^|>]*\|([^>]+)>/g, '$1'));
    const block = (b: Record<string, any>): string => {
      if (b.type === 'section') return `<div class="b">${text(String(b.text?.text ?? ''))}</div>`;
      if (b.type === 'context') return `<div class="ctx">${text((b.elements ?? []).map((e: any) => e.text).join(' '))}</div>`;
      if (b.type !== 'actions') return '';
      return `<div>${(b.elements ?? []).map((e: any) => e.type === 'checkboxes'
        ? `<div class="boxes">${e.options.map((o: any) => `<div>☐ <b>${escapeHtml(o.text.text)}</b><div class="ctx">${escapeHtml(o.description?.text ?? '')}</div></div>`).join('')}</div>`
        : `<span class="btn ${e.style ?? ''}">${escapeHtml(e.text.text)}</span>`).join('')}</div>`;
    };
    const html = `<!doctype html><meta charset="utf-8"><style>
body{font:15px/1.46 Lato,"DejaVu Sans",sans-serif;margin:0;padding:16px 20px;width:700px;background:#fff;color:#1d1c1d}
.m{display:flex;gap:10px;margin:10px 0}.av{width:36px;height:36px;border-radius:6px;background:#4a154b;color:#fff;display:flex;align-items:center;justify-content:center;font-weight:700;flex:none}
.b p{margin:4px 0}.b ul{margin:2px 0;padding-left:18px}.ctx{color:#616061;font-size:13px}.boxes{margin:6px 0}.boxes>div{margin:4px 0}
.btn{display:inline-block;border:1px solid #bbb;border-radius:4px;padding:3px 12px;margin:6px 6px 0 0;font-weight:700}
.btn.primary{background:#007a5a;color:#fff;border-color:#007a5a}</style>
<div class="m"><div class="av">t</div><div><b>turnbridge</b><div>${card.blocks.map(block).join('')}</div></div></div>`;
    const file = join(tmp, 'slack-card.html');
    writeFileSync(file, html);
    const page = await browser.newPage({ viewport: { width: 740, height: 300 } });
    await page.goto(`file://${file}`);
    await page.screenshot({ path: join(OUT, 'card-slack-question.png'), fullPage: true });
    await page.close();
    console.log('docs/images/card-slack-question.png');
  } finally {
    await rig.close();
  }
  const config = join(tmp, 'cards.yaml');
  writeFileSync(config, `default_profile: ${cards}\n`);
  const running = await startTurnbridge({
    env: { PATH: process.env.PATH ?? '', PORT: '0', TURNBRIDGE_DATA_DIR: join(tmp, 'card-data'), TURNBRIDGE_WORKSPACE: join(tmp, 'card-ws'), TURNBRIDGE_CONFIG: config, LOG_LEVEL: 'silent' },
    logger: silentLogger, print: () => {},
  });
  try {
    let page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    await page.goto(running.url);
    const say = async (text: string) => {
      await page.getByTestId('message-input').fill(text);
      await page.getByTestId('message-input').press('Enter');
    };
    await say('color');
    const question = page.getByTestId('question-card').last();
    await question.waitFor({ timeout: 20_000 });
    await question.screenshot({ path: join(OUT, 'card-question.png') });
    await question.getByTestId('card-option').filter({ hasText: 'Blue' }).click();
    await question.getByTestId('card-state').waitFor({ timeout: 20_000 });
    await question.screenshot({ path: join(OUT, 'card-question-answered.png') });
    await say('features');
    const multi = page.getByTestId('question-card').last();
    await multi.getByTestId('card-checkbox').first().waitFor({ timeout: 20_000 });
    await multi.getByTestId('card-checkbox').nth(0).check();
    await multi.getByTestId('card-checkbox').nth(2).check();
    await multi.screenshot({ path: join(OUT, 'card-multi-select.png') });
    await multi.getByTestId('card-submit').click();
    await multi.getByTestId('card-state').waitFor({ timeout: 20_000 });
    // the plan in a tab of its own: its text above the card, nothing else
    await page.close();
    page = await browser.newPage({ viewport: { width: 900, height: 520 } });
    await page.goto(running.url);
    await say('plan');
    const plan = page.getByTestId('plan-card').last();
    await plan.waitFor({ timeout: 20_000 });
    await page.getByTestId('bot-text').filter({ hasText: 'Run the tests' }).last().waitFor({ timeout: 20_000 });
    await plan.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUT, 'card-plan.png') });
    await plan.getByTestId('plan-revise').click();
    await page.getByTestId('form-input').fill('Write the test first.');
    await page.screenshot({ path: join(OUT, 'card-plan-feedback.png') });
    for (const name of ['card-question', 'card-question-answered', 'card-multi-select', 'card-plan', 'card-plan-feedback']) console.log(`docs/images/${name}.png`);
    await page.close();
  } finally {
    await running.shutdown();
  }
}

if (process.argv[2] === 'cards') {
  const tmp = mkdtempSync(join(tmpdir(), 'tb-shots-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    await cardPictures(browser, tmp);
  } finally {
    await browser.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  process.exit(0);
}

const pages = { ...(await doctorPictures()), reply: await slackReplyPicture() };
const tmp = mkdtempSync(join(tmpdir(), 'tb-shots-'));
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 400 }, deviceScaleFactor: 1 });
  for (const [name, html, width] of [['doctor-slack', pages.slack, 1104], ['doctor-discord', pages.discord, 1104], ['slack-reply', pages.reply, 800]] as const) {
    const file = join(tmp, `${name}.html`);
    writeFileSync(file, html);
    await page.setViewportSize({ width, height: 400 });
    await page.goto(`file://${file}`);
    await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
    console.log(`docs/images/${name}.png`);
  }
  await cardPictures(browser, tmp);
  // The local page, driven as a person would: type, look at the pending prompt, Allow, then Deny with a reason.
  const running = await startTurnbridge({
    env: { PATH: process.env.PATH ?? '', PORT: '0', TURNBRIDGE_DATA_DIR: join(tmp, 'data'), TURNBRIDGE_WORKSPACE: join(tmp, 'ws'), TURNBRIDGE_PROFILE: DEMO_PROFILE, TURNBRIDGE_CONFIG: '', LOG_LEVEL: 'silent' },
    logger: silentLogger, print: () => {},
  });
  try {
    await page.setViewportSize({ width: 900, height: 640 });
    await page.goto(running.url);
    await page.getByTestId('message-input').fill('hello, what can you do?');
    await page.getByTestId('message-input').press('Enter');
    // the prompt waits: the answer so far above it, one live status with Stop below it
    await page.locator('[data-testid="permission-prompt"] ~ [data-testid="bot-message"] [data-testid="stop-button"]').waitFor({ timeout: 20_000 });
    const stops = await page.getByTestId('stop-button').count();
    if (stops !== 1) throw new Error(`the page shows ${stops} Stop buttons while the prompt waits (one expected)`);
    await page.screenshot({ path: join(OUT, 'local-page-prompt.png') });
    console.log('docs/images/local-page-prompt.png');
    await page.getByTestId('allow-button').first().click();
    await page.getByTestId('bot-text').filter({ hasText: 'Permission granted' }).waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="bot-message"][data-running="true"]').waitFor({ state: 'detached', timeout: 20_000 });
    await page.screenshot({ path: join(OUT, 'local-page.png') });
    console.log('docs/images/local-page.png');
    await page.getByTestId('message-input').fill('why not?');
    await page.getByTestId('message-input').press('Enter');
    // as for the first prompt: the part below this one carries the turn's status and Stop, the part above is done
    const second = page.getByTestId('permission-prompt').nth(1);
    await second.locator('xpath=following-sibling::*[@data-testid="bot-message"]//*[@data-testid="stop-button"]').waitFor({ timeout: 20_000 });
    const stopsNow = await page.getByTestId('stop-button').count();
    if (stopsNow !== 1) throw new Error(`the page shows ${stopsNow} Stop buttons while the second prompt waits (one expected)`);
    await second.getByTestId('deny-reason-button').click({ timeout: 20_000 });
    await page.getByTestId('form-input').fill('not on a Friday');
    await page.screenshot({ path: join(OUT, 'local-page-deny-reason.png') });
    console.log('docs/images/local-page-deny-reason.png');
    await page.getByTestId('form-submit').click();
    await page.getByTestId('bot-text').filter({ hasText: 'not on a Friday' }).waitFor({ timeout: 20_000 });
  } finally {
    await running.shutdown();
  }
} finally {
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
}
