// AgentProc wire 0.4, agent side: read the turn, write NDJSON events, run one CLI child.
// The same file sits in profiles/claude-code, profiles/codex and profiles/gemini-cli so that each
// profile directory can be copied alone; test/unit/agents/wire-copies.test.ts keeps the copies identical.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { extname } from 'node:path';

/** Stdin as lines: the first non-empty line is the turn, later lines go to onLine (permission responses). */
export function openStdin(input = process.stdin) {
  let buf = '';
  let gotTurn = false;
  let ended = false;
  let onLine = null;
  let onEnd = null;
  const early = [];
  let resolveTurn;
  const turnLine = new Promise((r) => { resolveTurn = r; });
  const deliver = (line) => {
    if (!line.trim()) return;
    if (!gotTurn) { gotTurn = true; resolveTurn(line); return; }
    if (onLine) onLine(line); else early.push(line);
  };
  input.setEncoding('utf8');
  input.on('data', (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1); deliver(line); }
  });
  input.on('end', () => {
    if (buf) { deliver(buf); buf = ''; }
    ended = true;
    if (!gotTurn) { gotTurn = true; resolveTurn(null); }
    if (onEnd) onEnd();
  });
  input.on('error', () => {});
  return {
    turnLine,
    onLine(fn) { onLine = fn; for (const l of early.splice(0)) fn(l); },
    onEnd(fn) { onEnd = fn; if (ended) fn(); },
    /** Stop reading (permission false: the bridge closes stdin anyway; never block on it). */
    stop() { input.removeAllListeners('data'); input.pause(); input.destroy(); },
  };
}

/** Decode and check the turn line. Returns { turn } or { error }. */
export function parseTurn(line) {
  if (line === null) return { error: 'no turn object on stdin' };
  let t;
  try { t = JSON.parse(line); } catch { return { error: 'the turn line on stdin is not valid JSON' }; }
  if (typeof t !== 'object' || t === null || Array.isArray(t)) return { error: 'the turn line on stdin is not a JSON object' };
  if (t.type !== undefined && t.type !== 'turn') return { error: `expected a turn object on stdin, found type ${JSON.stringify(t.type)}` };
  const turn = {
    message: typeof t.message === 'string' ? t.message : '',
    sessionId: typeof t.session_id === 'string' ? t.session_id : '',
    sessionName: typeof t.session_name === 'string' ? t.session_name : 'default',
    attachments: Array.isArray(t.attachments) ? t.attachments.filter((a) => a && typeof a === 'object' && typeof a.url === 'string') : [],
    permission: t.permission === true,
  };
  if (!turn.message && turn.attachments.length === 0) return { error: 'empty turn: no message text and no attachments' };
  return { turn };
}

/** A session id is sent only when non-empty, without path separators or control characters. */
export function validSessionId(id) {
  return typeof id === 'string' && id !== '' && !/[/\\\u0000-\u001f\u007f]/.test(id);
}

/**
 * Writes wire events. The session id is stamped on every event once known: the inbound
 * turn.session_id from the first event when resuming, else the first id the CLI reports.
 */
export function createEmitter({ inboundSessionId = '', out = process.stdout, warn = defaultWarn } = {}) {
  let sessionId = validSessionId(inboundSessionId) ? inboundSessionId : '';
  let terminal = null;
  const write = (obj) => {
    if (sessionId) obj.session_id = sessionId;
    out.write(JSON.stringify(obj) + '\n');
  };
  return {
    get sessionId() { return sessionId; },
    get terminal() { return terminal; },
    noteSessionId(id) {
      if (!validSessionId(id)) return;
      if (!sessionId) sessionId = id;
      else if (id !== sessionId) warn(`CLI reported session ${id}; keeping ${sessionId}`);
    },
    partial(text, role) {
      if (terminal || typeof text !== 'string' || text === '') return;
      write(role && role !== 'output' ? { type: 'partial', text, role } : { type: 'partial', text });
    },
    permissionRequest(req) {
      if (terminal) return;
      write({ type: 'permission_request', ...req });
    },
    result(text, usage) {
      if (terminal) return;
      terminal = 'result';
      write(usage ? { type: 'result', text, usage } : { type: 'result', text });
    },
    error(message, usage) {
      if (terminal) return;
      terminal = 'error';
      write(usage ? { type: 'error', message, usage } : { type: 'error', message });
    },
  };
}

function defaultWarn(msg) { process.stderr.write(`[wrapper] ${msg}\n`); }

/** Flush stdout, then exit. */
export function finish(code) {
  process.stdout.write('', () => process.exit(code));
}

/** Keeps the last `max` characters of the CLI's stderr for error messages (and forwards it). */
export function stderrTail(max = 4000) {
  let tail = '';
  return {
    push(chunk) {
      process.stderr.write(chunk);
      tail = (tail + chunk).slice(-max);
    },
    text() {
      return tail.trim().split('\n').filter(Boolean).slice(-5).join('\n').slice(-600);
    },
  };
}

/**
 * Spawn the CLI without a shell. `onNotFound` runs instead of 'close' when the binary is missing.
 * SIGTERM/SIGINT/SIGHUP sent to the wrapper are forwarded; the CLI gets SIGKILL after graceMs.
 */
export function spawnCli(bin, args, { stdin = 'pipe', cwd, env = process.env, graceMs = 3000, onNotFound, onSignal } = {}) {
  // An unset ${VAR} in the profile env arrives as "": drop those so the CLI sees them as unset
  // (an empty ANTHROPIC_API_KEY must not hide a `claude login`).
  const childEnv = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const child = spawn(bin, args, { stdio: [stdin, 'pipe', 'pipe'], cwd, env: childEnv, shell: false });
  let signalled = null;
  child.on('error', (e) => {
    if (e && (e.code === 'ENOENT' || e.code === 'EACCES') && child.pid === undefined) onNotFound?.(e);
  });
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    process.on(sig, () => {
      if (signalled) return;
      signalled = sig;
      onSignal?.(sig);
      try { child.kill(sig); } catch { /* gone */ }
      setTimeout(() => { try { child.kill('SIGKILL'); } catch { /* gone */ } }, graceMs).unref();
    });
  }
  child.stdin?.on('error', () => {});
  return { child, signalled: () => signalled };
}

/** Reads a child's stdout as lines of JSON; non-JSON lines go to stderr (debug). */
export function onJsonLines(stream, fn) {
  let buf = '';
  stream.setEncoding('utf8');
  const handle = (line) => {
    if (!line.trim()) return;
    let obj;
    try { obj = JSON.parse(line); } catch { process.stderr.write(`[cli stdout] ${line}\n`); return; }
    if (obj && typeof obj === 'object' && !Array.isArray(obj)) fn(obj);
  };
  stream.on('data', (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1); handle(line); }
  });
  stream.on('end', () => { if (buf) handle(buf); buf = ''; });
}

const IMAGE_TYPES = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' };

/**
 * Split turn attachments into local images (file:// URLs) and everything else (a local path
 * when the URL is file://, else the URL as given).
 */
export function splitAttachments(attachments) {
  const images = [];
  const others = [];
  for (const a of attachments) {
    let path = null;
    if (a.url.startsWith('file:')) {
      try { path = fileURLToPath(a.url); } catch { path = null; }
    }
    const mime = typeof a.mime_type === 'string' ? a.mime_type.toLowerCase() : '';
    const mediaType = mime.startsWith('image/') ? mime : (IMAGE_TYPES[extname(path ?? a.url).toLowerCase()] ?? '');
    const isImage = a.kind === 'image' || mime.startsWith('image/');
    if (path && isImage && mediaType) images.push({ path, mediaType, name: a.filename ?? '' });
    else others.push(path ?? a.url);
  }
  return { images, others };
}

/** The user message with non-inlined attachments listed as paths (never parsed as flags: it goes on stdin). */
export function messageWithFiles(message, files, fallback = 'Please look at the attached file(s).') {
  if (files.length === 0) return message || fallback;
  const list = files.map((f) => `- ${f}`).join('\n');
  const head = message || fallback;
  return head ? `${head}\n\nAttached files:\n${list}` : `Attached files:\n${list}`;
}

/** Trimmed env value, '' when unset. */
export function envValue(env, name) {
  const v = env[name];
  return typeof v === 'string' ? v.trim() : '';
}

/** Comma/space separated list from an env value. */
export function envList(env, name) {
  return envValue(env, name).split(/[,\s]+/).filter(Boolean);
}

/** "1", "true", "yes", "on" are true; "0", "false", "no", "off" are false; else the default. */
export function envFlag(env, name, dflt) {
  const v = envValue(env, name).toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return dflt;
}
