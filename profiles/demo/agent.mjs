#!/usr/bin/env node
// Demo AgentProc 0.4 agent: streams partials (some "thinking"), keeps a resumable session,
// asks permission for a harmless tool when the turn allows it. Dependency-free.
// Special words in the message: "fail" -> error event, "big" -> ~12,000-character markdown
// reply, "long" -> streams slowly for ~30 s (DEMO_LONG_MS), "plot" -> a chart (PNG) and its
// data (CSV) left in the outbox, which the bridge posts below the reply. See README.md.
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { plotPng } from './plot.mjs';

const DELAY_MS = numberFromEnv('DEMO_DELAY_MS', 150);
const LONG_MS = numberFromEnv('DEMO_LONG_MS', 30_000);
// In HOME, not the temp dir: a sandboxed turn's /tmp is its own and goes with it.
const STATE_DIR = process.env.DEMO_STATE_DIR || join(homedir(), '.turnbridge-demo', 'sessions');
const ID_PATTERN = /^demo-[0-9a-f]{16}$/;

function numberFromEnv(name, fallback) {
  const n = Number(process.env[name]);
  return process.env[name] !== undefined && process.env[name] !== '' && Number.isFinite(n) && n >= 0 ? n : fallback;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let sessionId = '';
function emit(event) {
  process.stdout.write(JSON.stringify(sessionId ? { ...event, session_id: sessionId } : event) + '\n');
}

// --- stdin: the turn line first, then permission_response lines (permission: true only) ---
const rl = createInterface({ input: process.stdin });
const waiting = new Map();
let stdinClosed = false;
let resolveTurn;
const turnLine = new Promise((r) => { resolveTurn = r; });
rl.on('line', (line) => {
  if (resolveTurn) { const r = resolveTurn; resolveTurn = undefined; r(line); return; }
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg && msg.type === 'permission_response' && waiting.has(msg.request_id)) {
    const done = waiting.get(msg.request_id);
    waiting.delete(msg.request_id);
    done(msg);
  }
});
rl.on('close', () => {
  stdinClosed = true;
  if (resolveTurn) resolveTurn('');
  for (const [id, done] of waiting) { waiting.delete(id); done({ behavior: 'deny', message: 'stdin closed before a decision' }); }
});

function askPermission(requestId, toolName, input, description) {
  if (stdinClosed) return Promise.resolve({ behavior: 'deny', message: 'stdin already closed' });
  const decision = new Promise((r) => waiting.set(requestId, r));
  emit({ type: 'permission_request', request_id: requestId, tool_name: toolName, input, description });
  return decision;
}

// --- sessions: a JSON file per id, so the next turn really resumes ---
function loadSession(id) {
  if (!ID_PATTERN.test(id)) return undefined;
  try { return JSON.parse(readFileSync(join(STATE_DIR, `${id}.json`), 'utf8')); } catch { return undefined; }
}
function saveSession(id, state) {
  mkdirSync(STATE_DIR, { recursive: true });
  const file = join(STATE_DIR, `${id}.json`);
  writeFileSync(`${file}.tmp`, JSON.stringify(state));
  renameSync(`${file}.tmp`, file);
}

// Split at word boundaries into about `pieces` partials, one every DELAY_MS.
async function stream(text, role, pieces) {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const per = Math.max(1, Math.ceil(words.length / pieces));
  for (let i = 0; i < words.length; i += per) {
    const piece = words.slice(i, i + per).join('');
    emit(role ? { type: 'partial', text: piece, role } : { type: 'partial', text: piece });
    await sleep(DELAY_MS);
  }
}

function bigReply(turnNo) {
  const parts = [`# A big reply (turn ${turnNo})\n\n`, 'This reply is long on purpose, to show how a chat platform splits it over several messages.\n\n'];
  let section = 1;
  while (parts.join('').length < 11_000) {
    parts.push(`## Section ${section}\n\n`);
    parts.push(`- item ${section}.1: the quick brown fox jumps over the lazy dog\n- item ${section}.2: pack my box with five dozen liquor jugs\n\n`);
    parts.push('Some prose to fill the space, with **bold**, _italic_ and `inline code`. '.repeat(6) + '\n\n');
    if (section % 3 === 1) {
      parts.push('```js\n');
      for (let i = 0; i < 12; i++) parts.push(`const line${section}_${i} = ${JSON.stringify('value ' + i)}; // a code line that must stay inside its fence\n`);
      parts.push('```\n\n');
    }
    section++;
  }
  parts.push('The end.\n');
  return parts.join('');
}

async function main() {
  const line = await turnLine;
  let turn = {};
  try { turn = JSON.parse(line); } catch { /* treat as empty */ }
  const message = typeof turn.message === 'string' ? turn.message : '';
  const inbound = typeof turn.session_id === 'string' ? turn.session_id : '';
  const attachments = Array.isArray(turn.attachments) ? turn.attachments : [];
  if (!message && attachments.length === 0) {
    emit({ type: 'error', message: 'Empty turn: send some text or an attachment.' });
    process.exit(1);
  }

  const previous = loadSession(inbound);
  const started = Date.now();
  sessionId = previous ? inbound : `demo-${randomBytes(8).toString('hex')}`;
  const state = previous ?? { turns: 0, created: new Date().toISOString() };
  state.turns += 1;
  state.lastMessage = message.slice(0, 200);
  saveSession(sessionId, state);

  const note = inbound && !previous ? ` (session ${inbound} was not found, so this is a new one)` : '';
  await stream(`Reading your message${note}…\n`, 'thinking', 2);

  if (/\bfail\b/i.test(message)) {
    emit({ type: 'partial', text: 'About to fail, as asked.\n' });
    emit({ type: 'error', message: 'Demo failure: the message contained "fail".', usage: { duration_ms: Date.now() - started } });
    process.exit(1);
  }

  let body = `This is turn ${state.turns} of session ${sessionId}.\n`;
  if (attachments.length) body += `You attached ${attachments.length} file(s): ${attachments.map((a) => `${a?.kind} ${a?.url}`).join(', ')}.\n`;

  if (/\bbig\b/i.test(message)) {
    body += bigReply(state.turns);
    await stream(body, undefined, 12);
  } else if (/\blong\b/i.test(message)) {
    const ticks = 60;
    await stream(body, undefined, 1);
    for (let i = 1; i <= ticks; i++) {
      await sleep(LONG_MS / ticks);
      const piece = `tick ${i}/${ticks}\n`;
      body += piece;
      emit({ type: 'partial', text: piece });
    }
  } else if (/\bplot\b/i.test(message)) {
    // The outbox: files left here are posted to the chat when the turn ends (TURNBRIDGE_OUTBOX,
    // else outbox/ in the working directory).
    const outbox = process.env.TURNBRIDGE_OUTBOX || join(process.cwd(), 'outbox');
    mkdirSync(outbox, { recursive: true });
    const values = Array.from({ length: 48 }, (_, i) => Math.round((Math.sin(i / 4 + state.turns) * 40 + i) * 100) / 100);
    writeFileSync(join(outbox, 'plot.png'), plotPng(values));
    writeFileSync(join(outbox, 'plot.csv'), `x,y\n${values.map((v, i) => `${i},${v}`).join('\n')}\n`);
    body += 'I drew a chart of 48 points and left it in my outbox with its data: plot.png and plot.csv come below this reply.\n';
    await stream(body, undefined, 2);
  } else {
    await stream('Thinking about what to say.\n', 'thinking', 1);
    body += `You said: ${message}\n`;
    await stream(body, undefined, 4);
  }

  if (turn.permission === true) {
    const input = { command: 'date' };
    const decision = await askPermission('1', 'Bash', input, 'Run `date` to show the current time (harmless).');
    let piece;
    if (decision.behavior === 'allow') {
      const command = decision.updated_input && typeof decision.updated_input.command === 'string' ? decision.updated_input.command : input.command;
      piece = command === 'date'
        ? `Permission granted: ran \`date\` → ${new Date().toString()}\n`
        : `Permission granted, but the input was changed to ${JSON.stringify(command)}; the demo only ever runs \`date\`, so it ran nothing.\n`;
    } else {
      piece = `Permission denied${decision.message ? ` (${decision.message})` : ''}: did not run \`date\`.\n`;
    }
    body += piece;
    emit({ type: 'partial', text: piece });
  }

  emit({ type: 'result', text: body, usage: { output_tokens: body.length, duration_ms: Date.now() - started } });
  rl.close();
  process.exit(0);
}

process.on('SIGTERM', () => {
  emit({ type: 'partial', text: '\n(stopped)\n' });
  process.exit(143);
});

main().catch((err) => {
  emit({ type: 'error', message: `demo agent crashed: ${err && err.message}` });
  process.exit(1);
});
