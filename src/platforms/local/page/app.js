// The local chat page: server -> browser over SSE (EventSource), browser -> server with fetch POST.
// One conversation per tab: its id lives in sessionStorage.
import { escapeHtml, renderMarkdown } from './markdown.js';
import { openForm, renderPrompt } from './prompt.js';
import { el } from './dom.js';

const $ = (id) => document.getElementById(id);
const randomId = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`).replace(/[^A-Za-z0-9_-]/g, '');

let page = sessionStorage.getItem('turnbridge.page');
if (!page) {
  page = `tab-${randomId().slice(0, 12)}`;
  sessionStorage.setItem('turnbridge.page', page);
}

const log = $('log');
const elements = new Map();
/** The last thinking seen per reply: the bridge clears it once the answer streams; the page keeps it, folded. */
const thoughts = new Map();
/** How a failed or stopped turn ended (delivery/reply/render.ts outcomeLine), after the reply's --- separator. */
const OUTCOME = /^(error|timed out|interrupted)(:|$)|^stopped( by @|$)/;
const REACTIONS = { working: '…', success: '✓', failure: '✗' };

function nearBottom() {
  return log.scrollHeight - log.scrollTop - log.clientHeight < 80;
}

function renderUser(item) {
  const node = el('div', { class: 'msg user', 'data-testid': 'user-message', 'data-id': item.id, 'data-state': item.state });
  node.textContent = item.text;
  if (item.state) node.append(el('span', { class: 'badge', 'data-testid': 'user-reaction' }, escapeHtml(REACTIONS[item.state] ?? item.state)));
  return node;
}

function renderBot(item) {
  const c = item.content;
  const node = el('div', { class: 'msg bot', 'data-testid': 'bot-message', 'data-id': item.id, 'data-running': c.stopActionId ? 'true' : 'false' });
  if (c.thinking) {
    thoughts.set(item.id, c.thinking);
    node.append(el('div', { class: 'thinking', 'data-testid': 'bot-thinking' }, escapeHtml(c.thinking)));
  } else if (thoughts.has(item.id)) {
    const folded = el('details', { class: 'thought', 'data-testid': 'bot-thought' });
    folded.append(el('summary', {}, 'thought'), el('div', { class: 'thinking' }, escapeHtml(thoughts.get(item.id))));
    node.append(folded);
  }
  const text = el('div', { class: 'text', 'data-testid': 'bot-text' }, renderMarkdown(c.text ?? ''));
  // The outcome line is the reply's last paragraph after a rule: shown as a status, not as body text.
  const last = text.lastElementChild;
  if (last?.tagName === 'P' && last.previousElementSibling?.tagName === 'HR' && OUTCOME.test(last.textContent ?? '')) {
    last.classList.add('outcome');
    last.dataset.testid = 'bot-outcome';
    last.dataset.tone = /^stopped/.test(last.textContent ?? '') ? 'warning' : 'error';
    last.previousElementSibling.classList.add('outcome-rule');
  }
  node.append(text);
  const footer = el('div', { class: 'footer' });
  if (c.status) footer.append(el('span', { class: 'status', 'data-testid': 'bot-status', 'data-tone': c.tone ?? 'info' }, escapeHtml(c.status)));
  if (c.footer) footer.append(el('span', { class: 'usage', 'data-testid': 'bot-usage' }, escapeHtml(c.footer)));
  if (c.stopActionId) {
    const stop = el('button', { type: 'button', class: 'stop', 'data-testid': 'stop-button' }, 'Stop');
    stop.addEventListener('click', () => {
      stop.disabled = true;
      act('stop', c.stopActionId);
    });
    footer.append(stop);
  }
  node.append(footer);
  return node;
}

function sizeText(bytes) {
  return bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} B`;
}

/** Files the agent left in its outbox: images inline, every file a link. */
function renderFiles(item) {
  const node = el('div', { class: 'msg bot files', 'data-testid': 'bot-files', 'data-id': item.id });
  if (item.caption) node.append(el('div', { class: 'caption' }, escapeHtml(item.caption)));
  for (const f of item.files) {
    const box = el('div', { class: 'file', 'data-testid': 'bot-file', 'data-name': f.name });
    if (f.image) {
      const link = el('a', { href: f.url, target: '_blank', rel: 'noopener' });
      link.append(el('img', { src: f.url, alt: f.name, 'data-testid': 'bot-file-image' }));
      box.append(link);
    }
    const link = el('a', { href: f.url, download: f.name, 'data-testid': 'bot-file-link' });
    link.textContent = f.name;
    box.append(link, el('span', { class: 'size' }, escapeHtml(sizeText(f.size))));
    node.append(box);
  }
  return node;
}

function show(item) {
  const stick = nearBottom();
  const node = item.kind === 'user' ? renderUser(item) : item.kind === 'bot' ? renderBot(item) : item.kind === 'files' ? renderFiles(item) : renderPrompt(item, act);
  const old = elements.get(item.id);
  if (old) old.replaceWith(node);
  else log.append(node);
  elements.set(item.id, node);
  if (stick) log.scrollTop = log.scrollHeight;
}

function toast(text) {
  const node = el('div', { class: 'toast', 'data-testid': 'toast', role: 'status' });
  node.textContent = text;
  $('toasts').append(node);
  setTimeout(() => node.remove(), 6000);
}

async function post(path, body) {
  try {
    const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page, ...body }) });
    if (!res.ok) {
      const detail = await res.json().catch(() => ({}));
      toast(`The bridge refused: ${detail.error ?? res.status}`);
    }
  } catch (err) {
    toast(`Could not reach the bridge: ${err.message}`);
  }
}

/** A reason, an edited input, a typed answer, a plan's feedback: null when taken, else why not (shown in the dialog, which stays open). */
async function submitForm(kind, id, value, question) {
  try {
    const res = await fetch('/local/form', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page, kind, id, value, question }) });
    if (res.ok) return null;
    const detail = await res.json().catch(() => ({}));
    return detail.error ?? `The bridge answered ${res.status}.`;
  } catch (err) {
    return `Could not reach the bridge: ${err.message}`;
  }
}

/** A click: Stop, a prompt's choice, a card's (with the question and options it is about). */
function act(action, id, choice) {
  return post('/local/action', { action, id, choice });
}

let typingTimer;
function connect() {
  const conn = $('connection');
  const events = new EventSource(`/local/events?page=${encodeURIComponent(page)}`);
  events.addEventListener('open', () => { conn.textContent = 'connected'; conn.dataset.state = 'open'; });
  events.addEventListener('error', () => { conn.textContent = 'reconnecting…'; conn.dataset.state = 'closed'; });
  events.addEventListener('snapshot', (e) => {
    log.replaceChildren();
    elements.clear();
    for (const item of JSON.parse(e.data).items) show(item);
  });
  events.addEventListener('item', (e) => show(JSON.parse(e.data)));
  events.addEventListener('toast', (e) => toast(JSON.parse(e.data).text));
  events.addEventListener('form', (e) => openForm(JSON.parse(e.data), submitForm));
  events.addEventListener('typing', () => {
    $('typing').hidden = false;
    clearTimeout(typingTimer);
    typingTimer = setTimeout(() => { $('typing').hidden = true; }, 3000);
  });
}

function setup() {
  $('page-id').textContent = page;
  const input = $('input');
  const send = () => {
    const text = input.value;
    if (text.trim() === '') return;
    input.value = '';
    post('/local/send', { text, id: randomId() });
  };
  $('composer').addEventListener('submit', (e) => { e.preventDefault(); send(); });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(); }
  });
  input.focus();
  connect();
}

setup();
